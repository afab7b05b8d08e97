#pragma once
// A tiny FLUX.1-shaped pipeline (CLIP + T5 + Flux transformer with a guidance embedding + a
// 16-channel VAE), random weights, written in the three layouts users have:
//   folder/        the diffusers repository: model_index.json, transformer and text_encoder_2
//                  sharded (*-0000N-of-00002.safetensors + index), tokenizer, tokenizer_2;
//   flux1-tiny.safetensors   the Black Forest Labs single file (double_blocks.N ...), with
//                  bfl-prefixed.safetensors the same under ComfyUI's "model.diffusion_model.";
//   ae.safetensors, clip_l.safetensors, t5xxl_tiny.safetensors   the ComfyUI set's other files,
//                  the VAE in the original (LDM) layout, the encoders with transformers' keys;
//                  beside them tokenizer/ and tokenizer_2/ as the files are found.
// The same weights in every layout, so every layout must give the same image.
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/named_tensors.h"
#include "models/common/weights.h"

namespace hs::test {

struct Flux1Files {
    std::string root;  // holds everything below
    std::string folder;
    std::string bfl, bflPrefixed, ae, clipL, t5;
    std::string tokenizer, tokenizer2;  // the folders beside the single files
};

// `dev`: a guidance embedding (FLUX.1-dev); otherwise none (schnell). Writes under `root`.
Flux1Files writeTinyFlux1(const std::string& root, bool dev = true);

// A FluxTransformer2DModel config in small: `doubles` double and `singles` single blocks of
// `heads` heads of width 16 over 16 latent channels, rotary axes {4, 6, 6}, text widths 24 (T5)
// and 20 (CLIP), no guidance embedding; `fields` set over it.
nlohmann::json smallFluxTransformerConfig(int doubles, int singles, int heads,
                                          const nlohmann::json& fields = nlohmann::json::object());

// Inputs for a smallFluxTransformerConfig model (no guidance), drawn after seeding 3: latents of 6
// tokens [1, 6, 16] at random img_ids [6, 3], 5 text tokens [1, 5, 24] at zero txt_ids, CLIP's
// pooled [1, 20], timestep 0.6.
NamedTensors smallFluxInputs();

// A small two-level AutoencoderKL (width 32, one resnet per level, 32 groups, silu, 16 latent
// channels), the shape of FLUX's and SD's VAEs in small, with `fields` set over it.
nlohmann::json smallAutoencoderKlConfig(const nlohmann::json& fields);

// A T5 encoder in small (width 32, 2 layers, gated GELU) over the 416 ids of the tiny
// spiece.model in tests/data/flux1_tiny/tokenizer_2: FLUX.1's second and SD3's third encoder.
nlohmann::json tinyT5Config();

// Random weights for `config` through its family, as a trainer starts.
WeightMap randomWeightsOf(const nlohmann::json& config, const std::string& className,
                          uint64_t seed);

// Layout rewrites shared with the single-file tests, written independently of the converters.
// diffusers FluxTransformer2DModel keys -> Black Forest Labs keys.
WeightMap fluxToBfl(const WeightMap& diffusers, int doubles, int singles);
// diffusers AutoencoderKL keys -> LDM (original) keys; `levels` = len(block_out_channels).
WeightMap vaeToLdm(const WeightMap& diffusers, int levels);

// Writes `weights` as `count` shards <dir>/<stem>-0000N-of-0000M.safetensors plus
// <dir>/<stem>.safetensors.index.json, as Hugging Face saves large models.
void writeSharded(const std::string& dir, const std::string& stem, const WeightMap& weights,
                  int count);

}  // namespace hs::test
