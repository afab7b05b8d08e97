#pragma once
// A tiny SD3.5-shaped pipeline (CLIP-L + CLIP-G with projections, T5, an SD3 transformer with
// dual attention in block 0 and RMS qk-norm, a 16-channel VAE), random weights:
//   folder/   the diffusers repository (model_index.json StableDiffusion3Pipeline, tokenizer,
//             tokenizer_2, tokenizer_3, scheduler shift 3.0);
//   files/    ComfyUI's set: sd3.5-tiny.safetensors (the transformer under
//             "model.diffusion_model." in Stability's layout), ae.safetensors (the VAE, LDM
//             layout), clip_l, clip_g and t5xxl files with transformers' keys, and the
//             tokenizer folders beside them.
#include <nlohmann/json.hpp>
#include <string>

#include "records/run_types.h"

namespace hs::test {

struct Sd3Files {
    std::string folder;
    std::string dit, ae, clipL, clipG, t5;
    ModelFiles comfySet() const;  // ae, clip_l, clip_g, t5xxl given for the dit file
};

// The transformer's config: 2 blocks, 4 heads of 8, joint width 32, pooled 48, patch 2.
nlohmann::json sd3TransformerConfigFixture();

Sd3Files writeTinySd3(const std::string& root);

}  // namespace hs::test
