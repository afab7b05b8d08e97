#pragma once
// The Cosmos-Predict2 text-to-image shape, as diffusers' Cosmos2TextToImagePipeline runs it: the
// prompt through T5 (padded to 512 tokens with its attention mask, padding zeroed); latents
// [1, C, 1, h, w] from the seed times sigma_max 80; Karras sigmas (rho 7) from 80 down to 0.002
// with the last step's sigma held at 0.002 (final_sigmas_type "sigma_min"); each step the
// transformer sees t = sigma / (sigma + 1) and latents * (1 - t), its output becomes the x0
// estimate (1 - t) x - t out, guidance as cond + g (cond - uncond) on those estimates (7.0,
// NVIDIA's default negative prompt when none is given), then an Euler step on
// (x - x0) / sigma; decode of latents * latents_std / sigma_data + latents_mean with the Wan VAE.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeCosmos2TextToImageStrategy();

}  // namespace hs
