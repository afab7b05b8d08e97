#pragma once
// Configuration of diffusers' AutoencoderKLQwenImage and AutoencoderKLWan (one architecture, two
// class names: the Wan 2.1 video VAE and Qwen-Image's fine-tune of it), read from config.json.
// Wan 2.2's residual layout (is_residual, patch_size) is refused by name.
#include <torch/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/config.h"

namespace hs {

struct WanVaeConfig {
    std::string className = "AutoencoderKLWan";
    int baseDim = 96;
    int decoderBaseDim = 96;  // AutoencoderKLWan's decoder_base_dim (null: base_dim)
    int zDim = 16;
    std::vector<int> dimMult{1, 2, 4, 4};
    int numResBlocks = 2;
    std::vector<double> attnScales;  // encoder attention after the resnets at these scales
    std::vector<bool> temperalDownsample{false, true, true};  // one per downsampling level
    int inChannels = 3;               // Qwen: input_channels; Wan: in_channels
    int outChannels = 3;              // Qwen: input_channels; Wan: out_channels
    std::vector<double> latentsMean;  // z_dim entries (diffusers' 16 defaults when absent)
    std::vector<double> latentsStd;

    int levels() const { return static_cast<int>(dimMult.size()); }
    // Image pixels per latent pixel on each axis: 2^(levels - 1) (8 for the released models).
    int downFactor() const { return 1 << (levels() - 1); }
    // Channels of the encoder's levels: base_dim * [1] + dim_mult.
    std::vector<int> encoderDims() const;
    // Channels of the decoder's levels: decoder_base_dim * [dim_mult[-1]] + reversed(dim_mult).
    std::vector<int> decoderDims() const;

    // Throws ConfigError naming the field for wrong types, sizes past their bounds, list lengths
    // that do not fit dim_mult or z_dim, and the Wan 2.2 options.
    static WanVaeConfig fromJson(const nlohmann::json& j);
};

// Diffusion-space latents [B, z_dim, h, w] -> decoder input, as diffusers' Qwen-Image and Wan
// pipelines do it: latents / (1 / latents_std) + latents_mean, per channel, the reciprocal taken
// in the latents' dtype.
torch::Tensor wanUnscaleLatents(const torch::Tensor& latents, const WanVaeConfig& cfg);
// The inverse: (z - latents_mean) * (1 / latents_std).
torch::Tensor wanScaleLatents(const torch::Tensor& z, const WanVaeConfig& cfg);

}  // namespace hs
