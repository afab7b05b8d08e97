#pragma once
// A tiny SD3.5-shaped pipeline (CLIP-L + CLIP-G with projections, T5, an SD3 transformer with
// dual attention in block 0 and RMS qk-norm, a 16-channel VAE), random weights:
//   folder/   the diffusers repository (model_index.json StableDiffusion3Pipeline, tokenizer,
//             tokenizer_2, tokenizer_3, scheduler shift 3.0);
//   files/    ComfyUI's set: sd3.5-tiny.safetensors (the transformer under
//             "model.diffusion_model." in Stability's layout), ae.safetensors (the VAE, LDM
//             layout), clip_l, clip_g and t5xxl files with transformers' keys, and the
//             tokenizer folders beside them.
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "models/common/named_tensors.h"
#include "models/common/weights.h"
#include "models/registry.h"
#include "numerics/probe.h"
#include "records/run_types.h"

namespace hs::test {

struct Sd3Files {
    std::string folder;
    std::string dit, ae, clipL, clipG, t5;
    ModelFiles comfySet() const;  // ae, clip_l, clip_g, t5xxl given for the dit file
};

// The transformer's config: 2 blocks, 4 heads of 8, joint width 32, pooled 48, patch 2.
nlohmann::json sd3TransformerConfigFixture();

// `residualScale` multiplies every writer into the transformer's two residual streams
// (pos_embed's proj and its positional table, context_embedder, each block's attn.to_out.0,
// attn.to_add_out, attn2.to_out.0, ff.net.2, ff_context.net.2: weights and biases) by c: the
// function is the same, since every reader normalises first (norm1, norm1_context, norm2,
// norm2_context and norm_out are LayerNorms without affine), the streams c times larger, as a
// bf16-trained model's massive activations are. `mlpGain` multiplies the feed-forwards' outputs
// (net.2) once more, in both the scaled model and its reference (scale 1): the random
// transformer's updates are about as large as its embeddings; with a gain its largest values are
// inside the blocks, so that a scale can take them past fp16's range while the embeddings stay
// inside it. 1 and 1 (the default) write the plain weights, untouched.
Sd3Files writeTinySd3(const std::string& root, double residualScale = 1.0, double mlpGain = 1.0);

// ---- the transformer alone (the SD3 model tests) ----------------------------------------------

// An SD3 transformer of `config` and `weights` through its registered family, as the pipelines
// load it, in the slot "transformer".
std::shared_ptr<Component> loadSd3Transformer(const nlohmann::json& config,
                                              const WeightMap& weights, ProbeContext& probes,
                                              LoadMode mode = LoadMode::Full);

// Shares nothing with the goldens: patch 2, 16 channels in and out, 2 heads of 12, three blocks
// with dual attention in blocks 0 and 1, RMS qk-norm, a 8 x 8 positional table.
nlohmann::json otherSd3Config();

// Seeded random weights in checkpoint layout: default linears, norms around 1, small biases, and
// the positional table diffusers stores.
WeightMap randomSd3Weights(const nlohmann::json& config, uint64_t seed = 5);

// For otherSd3Config: a batch of 2 with 12 x 10 latents (6 x 5 patches of the 8 x 8 table), 5
// text tokens, two timesteps.
NamedTensors otherSd3Inputs();

// diffusers SD3Transformer2DModel keys -> Stability's MMDiT keys (sd3_medium, sd3.5_*): written
// from the reference implementation's module names, not from the converter. `unused` (when
// given) receives the diffusers keys no Stability key holds.
WeightMap sd3ToStability(const WeightMap& diffusers, int layers,
                         std::set<std::string>* unused = nullptr);

}  // namespace hs::test
