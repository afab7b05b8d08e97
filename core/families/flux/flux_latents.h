#pragma once
// Latent packing and position ids as diffusers' FluxPipeline does them (_pack_latents,
// _unpack_latents, _prepare_latent_image_ids, text ids of zeros).
#include <torch/types.h>

#include <cstdint>

namespace hs {

// latents [B, C, H, W] (H, W even) -> [B, (H/2)(W/2), 4C]: 2x2 patches, row-major over the
// patch grid, channel-major inside a patch (c, dy, dx). Throws InputError for odd sizes.
torch::Tensor packLatents(const torch::Tensor& latents);

// packed [B, (H/2)(W/2), 4C] -> [B, C, H, W], for the latent size H x W (diffusers takes the
// image size and the VAE scale factor instead: H = 2 * (height // (vae_scale_factor * 2))).
torch::Tensor unpackLatents(const torch::Tensor& packed, int64_t latentHeight, int64_t latentWidth);

// Position ids of the packed grid (gridH = H/2, gridW = W/2): [gridH * gridW, 3] float32 with
// (0, row, col), row-major, on `device`.
torch::Tensor prepareLatentImageIds(int64_t gridHeight, int64_t gridWidth,
                                    const torch::Device& device = torch::kCPU);

// Text position ids: zeros [textLength, 3].
torch::Tensor prepareTextIds(int64_t textLength, const torch::Device& device = torch::kCPU);

}  // namespace hs
