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
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/weights.h"

namespace hs::test {

struct QwenImageFiles {
    std::string root;
    std::string folder;
    std::string dit, textEncoder, vae;  // the ComfyUI set
    WeightMap transformer;              // the DiT's weights as written
};

// `residualScale` multiplies every writer into the DiT's two residual streams (img_in, txt_in,
// each block's attn.to_out.0, attn.to_add_out, img_mlp.net.2, txt_mlp.net.2: weights and
// biases) by c: the function is the same, since every reader normalises first (img_norm1/2,
// txt_norm1/2 and norm_out are LayerNorms without affine), the streams c times larger, as a
// bf16-trained model's massive activations are. `mlpGain` multiplies the MLPs' outputs (net.2)
// once more, in both the scaled model and its reference (scale 1): the random DiT's updates are
// about as large as its embeddings, so its streams barely grow through the blocks; with a gain
// they grow there, as a real DiT's massive activations do, and a scale can take the blocks past
// fp16's range while the embeddings stay inside it. The random modulations are left as they are
// (gates ~0.5, they do not blow the streams up).
QwenImageFiles writeTinyQwenImage(const std::string& root, double residualScale = 1.0,
                                  double mlpGain = 1.0);

// A copy of `f.folder` under `root` whose transformer is sharded in `shards` files
// (diffusion_pytorch_model-0000N-of-0000M.safetensors + the .index.json). Returns the folder.
std::string writeShardedQwenImage(const QwenImageFiles& f, const std::string& root, int shards);

// Qwen2.5-VL-7B-Instruct's language model as its config.json has it (text fields at the top
// level, as the original release): Qwen-Image's text encoder.
nlohmann::json realQwen25VlTextConfig();

// Qwen-Image's released transformer config (diffusers' QwenImageTransformer2DModel for
// Qwen/Qwen-Image: 60 blocks of 24 heads x 128, text width 3584, 64 packed channels).
nlohmann::json realQwenImageTransformerConfig();

// A ComfyUI-style Qwen2.5-VL language-model file `hidden` wide with `vocab` embeddings (keys
// under "model.").
std::string writeTinyQwen25Vl(const std::string& path, int hidden, int vocab = 152064);

}  // namespace hs::test
