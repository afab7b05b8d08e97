#pragma once
// The Stable Diffusion shapes, as diffusers runs them:
//   - StableDiffusionPipeline (SD 1.x, 2.x): one CLIP text encoder, its last hidden state as the
//     UNet's context;
//   - StableDiffusionXLPipeline (SDXL base, refiner): the penultimate hidden states
//     (hidden_states[-2], no final norm) of CLIP-L and OpenCLIP-bigG concatenated, bigG's
//     projected pooled vector (text_embeds) and add_time_ids (original size, crop, target size)
//     as the UNet's text_time conditioning; an empty negative prompt is zeros
//     (force_zeros_for_empty_prompt).
// Both denoise [1, 4, H/8, W/8] latents with a discrete-time scheduler (the model's own, or one
// the run picks), classifier-free guidance as one batch [uncond, cond] when guidance > 1, and
// the VAE decodes `latents / scaling_factor`.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeStableDiffusionStrategy();
std::unique_ptr<DenoisingStrategy> makeStableDiffusionXLStrategy();

// Whether a UNet config is SDXL's (text_time added conditioning).
bool isSdxlUNetConfig(const nlohmann::json& unetConfig);
// StrategyInfo::partMisfit: a VAE whose latents the UNet does not take.
std::string sdPartMisfit(const PartCheck& part);

}  // namespace hs
