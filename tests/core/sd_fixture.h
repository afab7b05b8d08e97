#pragma once
// Tiny Stable Diffusion 1.x- and SDXL-shaped pipelines (CLIP text encoders, a UNet2DCondition-
// Model, an AutoencoderKL), random weights, as a diffusers folder. The UNet is SD 1.x's block
// layout (conv projections, integer head count) or SDXL's (linear projections, a per-block list
// of transformer layers, text_time conditioning from a projected second encoder).
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/weights.h"

namespace hs::test {

struct SdFiles {
    std::string folder;                              // the diffusers pipeline folder
    WeightMap unet, vae, textEncoder, textEncoder2;  // the weights written there
    nlohmann::json unetConfig, vaeConfig, textEncoderConfig, textEncoder2Config;
};

// Writes `<root>/folder`. `scheduler` is the folder's scheduler_config.json.
SdFiles writeTinySd(const std::string& root, bool xl, const nlohmann::json& scheduler);

// SD 2.x's shape: an OpenCLIP-style text encoder padding with "!", linear projections.
SdFiles writeTinySd2(const std::string& root, const nlohmann::json& scheduler);

// The same weights as one LDM (SD) or SGM (SDXL) checkpoint at `path` (model.diffusion_model.*,
// first_stage_model.*, cond_stage_model.transformer.* or conditioner.embedders.0/1.*), with the
// folder's tokenizers copied beside it. Returns `path`.
std::string writeSdSingleFile(const SdFiles& f, const std::string& path, bool xl,
                              bool withSecondEncoder = true);

// SD 1.5's scheduler_config.json (runwayml/stable-diffusion-v1-5: PNDMScheduler), as the model
// ships it.
nlohmann::json sd15SchedulerConfig();

// SD's training schedule with an EulerDiscreteScheduler, as SDXL's scheduler_config.json has it.
nlohmann::json sdEulerConfig();

}  // namespace hs::test
