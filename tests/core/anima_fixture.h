#pragma once
// A tiny Anima-shaped pipeline (Qwen3 text encoder, Anima text conditioner, Cosmos-Predict2 DiT
// with the padding-mask channel, the Qwen-Image VAE), random weights, in the two layouts users
// have:
//   folder/      the diffusers repository as ModularPipeline.save_pretrained writes it:
//                modular_model_index.json, text_encoder/, tokenizer/ (a byte-level BPE),
//                t5_tokenizer/, text_conditioner/, transformer/, vae/, scheduler/ (shift 3);
//   anima-tiny.safetensors   ComfyUI's DiT file: NVIDIA's keys under "net.", the adapter as
//                net.llm_adapter.*; qwen_3_06b_base.safetensors (the Qwen3 under "model.");
//                qwen_image_vae.safetensors (original Wan keys, 16 latent channels so that
//                diffusers' latents_mean / latents_std apply); tokenizer/ and t5_tokenizer/
//                beside them.
// The same weights in both, so both must give the same image. The DiT's configuration is what
// the single file's conversion assumes (patch [1, 2, 2], rope_scale [1, 4, 4], max_size
// [128, 240, 240]) and the adapter's min_sequence_length is 512, as there.
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/weights.h"

namespace hs::test {

struct AnimaFiles {
    std::string root;
    std::string folder;
    std::string dit, qwen, vae;          // the ComfyUI set
    std::string tokenizer, t5Tokenizer;  // beside the set
    WeightMap transformer;               // the DiT's diffusers weights as written
};

// `residualScale` multiplies every writer into the DiT's residual stream (patch embedding,
// attention outputs, MLP outputs): the function is the same (every reader normalises first),
// the activations that many times larger, as a bf16-trained model's massive activations are.
AnimaFiles writeTinyAnima(const std::string& root, double residualScale = 1.0);

// A tiny Cosmos-Predict2-2B-Text2Image-shaped folder (model_index.json of
// Cosmos2TextToImagePipeline): a T5 v1.0-style encoder (ReLU feed-forward) as wide as the DiT's
// text input, the same DiT and VAE shapes as the Anima one, a Karras-sigma scheduler config as
// scripts/convert_cosmos_to_diffusers.py writes it. Returns the folder.
std::string writeTinyCosmos2(const std::string& root);

// A Qwen3Model component folder like the fixture's text encoder but `hidden` wide.
std::string writeTinyQwen3(const std::string& dir, int hidden);

// Random weights of every tensor the family's module for `config` holds: norms' scales near 1,
// biases small, matrices at 1/sqrt(fan_in) (the families' own initialisers do not reach every
// custom layer).
WeightMap randomFixtureWeights(const nlohmann::json& config, const std::string& className,
                               uint64_t seed);

// The Qwen-Image VAE's shape at a tiny width: 16 latent channels (diffusers' latents_mean /
// latents_std have 16 entries), two levels, spatial factor 2.
nlohmann::json tinyQwenImageVaeConfig();

// The DiT's diffusers keys -> NVIDIA's (ComfyUI's anima file, before the "net." prefix).
WeightMap cosmosToOriginal(const WeightMap& diffusers, int layers);

// AutoencoderKLWan / QwenImage keys -> the original Wan VAE's (qwen_image_vae.safetensors), for
// `resnets` = num_res_blocks.
WeightMap wanVaeToOriginal(const WeightMap& diffusers, int resnets);

// Cosmos-Predict2 2B text to image's released transformer config (Anima's DiT is one).
nlohmann::json realCosmosPredict2Config();

}  // namespace hs::test
