#pragma once
// Architecture of the embedded demo model, as the config.json files of a diffusers pipeline
// folder: a CLIP-style text encoder, a Flux-style transformer and an AutoencoderKL.
#include <nlohmann/json.hpp>

namespace hs::demo {

constexpr int kTextLength = 32;  // tokenizer model_max_length: captions need at most ~24

// text_encoder/config.json (transformers CLIPTextModel): 128 wide, 4 layers.
nlohmann::json textEncoderConfig(int vocabSize, int bosId, int eosId, int padId);
// transformer/config.json (diffusers FluxTransformer2DModel): 192 wide (3 heads x 64),
// 3 double-stream + 3 single-stream blocks, 2x2-packed 4-channel latents.
nlohmann::json transformerConfig();
// vae/config.json (diffusers AutoencoderKL): 128x128x3 <-> 16x16x4, four levels (8x down). The
// 128-pixel level is 16 channels wide, so the extra level costs about as much as each other one.
nlohmann::json vaeConfig(double scalingFactor, double shiftFactor);
// scheduler/scheduler_config.json (FlowMatchEulerDiscreteScheduler).
nlohmann::json schedulerConfig();
// model_index.json
nlohmann::json modelIndex();

}  // namespace hs::demo
