#pragma once
// The Qwen-Image text-to-image shape, as diffusers' QwenImagePipeline runs it: the prompt in its
// chat template through the Qwen2.5-VL language model (qwenimage_text.h), the template's first 34
// tokens dropped; latents [1, C, h, w] from the seed packed into 2 x 2 patches
// [1, (h/2)(w/2), 4C]; flow-matching Euler steps over sigmas linspace(1, 1/N, N) shifted by
// mu = calculate_shift(image tokens) (exponential time shift, then shift_terminal); the
// transformer called with t / 1000 and no guidance embedding; true classifier-free guidance
// when true_cfg_scale (RunConfig::guidance, 4.0) > 1 and a negative prompt is given, with the
// norm rescale noise = comb * ||cond|| / ||comb|| over each packed token; decode of
// latents * latents_std + latents_mean with the Qwen-Image VAE, one frame.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeQwenImageStrategy();

// The scheduler config of Qwen/Qwen-Image (scheduler/scheduler_config.json), for single files.
nlohmann::json qwenImageSchedulerConfig();

}  // namespace hs
