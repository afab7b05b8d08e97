#pragma once
// A tiny Qwen-Image-shaped pipeline (the language model of a Qwen2.5-VL, 16 wide, over the real
// Qwen2 vocabulary so that the bundled tokenizer and its chat template fit; a
// QwenImageTransformer2DModel of one 128-wide head, the width whose RoPE split ComfyUI's file
// implies; the Qwen-Image VAE at a tiny width with 16 latent channels), random weights, in the
// two layouts users have:
//   folder/      the diffusers repository: model_index.json of QwenImagePipeline, text_encoder/
//                (Qwen2_5_VLForConditionalGeneration, keys under "model."), tokenizer/ (the
//                bundled Qwen2 one), transformer/, vae/ (AutoencoderKLQwenImage), scheduler/
//                (Qwen/Qwen-Image's config);
//   comfyui/     ComfyUI's set: qwen_image_tiny.safetensors (the DiT with diffusers' keys, no
//                prefix), qwen_2.5_vl_tiny.safetensors (the language model under "model.", a
//                visual.* tensor beside it as in the real file), qwen_image_vae.safetensors
//                (original Wan keys); no tokenizer (the bundled one is taken).
// The same weights in both, so both must give the same image.
#include <string>

#include "models/common/weights.h"

namespace hs::test {

struct QwenImageFiles {
    std::string root;
    std::string folder;
    std::string dit, textEncoder, vae;  // the ComfyUI set
};

QwenImageFiles writeTinyQwenImage(const std::string& root);

// A ComfyUI-style Qwen2.5-VL language-model file `hidden` wide with `vocab` embeddings (keys
// under "model.").
std::string writeTinyQwen25Vl(const std::string& path, int hidden, int vocab = 152064);

}  // namespace hs::test
