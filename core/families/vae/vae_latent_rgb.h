#pragma once
// Which latent-to-RGB preview map an AutoencoderKL's latents take (models/latent_rgb.h): the
// config's own latent_rgb_factors (Halfscope's demo VAE), else the factors ComfyUI publishes for
// the latent format the config is (SD 1.x/2.x, SDXL, SD3, FLUX.1), else none.
#include "families/vae/vae_config.h"
#include "models/latent_rgb.h"

namespace hs {

// The published map of the format `cfg` matches: its latent channels, scaling_factor and
// shift_factor (relative 1e-4), without per-channel latents_mean / latents_std (another
// diffusion space); none (undefined factors) for any other config.
LatentRgbMap publishedLatentRgbMap(const AutoencoderKLConfig& cfg);

// The config's own factors first, then publishedLatentRgbMap.
LatentRgbMap latentRgbMapOf(const AutoencoderKLConfig& cfg);

}  // namespace hs
