#pragma once
// A Stable Diffusion run computed as ComfyUI computes it (RunConfig::comfySampler /
// comfyScheduler): ModelSamplingDiscrete's sigma table from the model's training schedule, the
// named sigma schedule, ComfyUI's k-diffusion sampler over the denoiser
//   D(x, sigma) = calculate_denoised(sigma, UNet(x / sqrt(sigma^2 + 1), t(sigma)), x)
// with t(sigma) the table's nearest index and the output read as eps (EPS), v (V_PREDICTION) or
// x0 ("sample"), classifier-free guidance on the denoised estimates (uncond + (cond - uncond)
// cfg, skipped only at cfg 1, as ComfyUI), and the start noise_scaling'd from the run's CPU
// randn (ComfyUI's prepare_noise: torch.manual_seed(seed), randn of the latent's shape).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "denoising/sd_text.h"
#include "denoising/strategy.h"
#include "families/unet/unet_family.h"

namespace hs {

// PipelineError for ComfyUI settings a run cannot take: a scheduler without a sampler, or
// `scheduler` and `comfySampler` both set.
void validateComfySampling(const RunConfig& cfg);

// `schedulerConfig`: the model's, its training schedule and prediction_type (cfg.predictionType
// overrides it); `noise`: initialNoise of the run, [1, C, h, w] float32 on the CPU; `notes`: the
// strategy's so far, to which the run adds what it runs otherwise than the image says.
std::unique_ptr<DenoisingRun> startSdComfyRun(const RunConfig& cfg, const torch::Device& device,
                                              SdText& text, UNet2DConditionModel unet,
                                              const nlohmann::json& schedulerConfig,
                                              const torch::Tensor& noise,
                                              std::vector<std::string> notes);

}  // namespace hs
