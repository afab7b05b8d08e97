#pragma once
// The latent-to-RGB preview map of AutoencoderKLWan's latents (models/latent_rgb.h): the
// factors ComfyUI publishes for Wan 2.1's latent format, the latent space of Wan 2.1,
// Qwen-Image, Cosmos-Predict2 and Anima, whose VAE is Wan 2.1's or a fine-tune of it.
#include "families/wan_vae/wan_vae_config.h"
#include "models/latent_rgb.h"

namespace hs {

// Wan21's published map for 16 latent channels (diffusion space: per-channel latents_mean and
// latents_std, as wanScaleLatents); none (undefined factors) for another z_dim.
LatentRgbMap wanLatentRgbMap(const WanVaeConfig& cfg);

}  // namespace hs
