#pragma once
// Configuration of a diffusers AutoencoderKL (the VAE of SD 1.x/2.x, SDXL, SD3, Flux ...), read
// from its config.json, plus the latent scaling that pipelines apply around decode/encode.
#include <torch/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/common/config.h"

namespace hs {

struct AutoencoderKLConfig {
    int inChannels = 3;
    int outChannels = 3;
    std::vector<std::string> downBlockTypes{"DownEncoderBlock2D"};
    std::vector<std::string> upBlockTypes{"UpDecoderBlock2D"};
    std::vector<int> blockOutChannels{64};
    int layersPerBlock = 1;
    std::string actFn = "silu";
    int latentChannels = 4;  // 4 (SD 1.x/2.x, SDXL) or 16 (SD3, Flux)
    int normNumGroups = 32;
    std::vector<int> sampleSize{32};  // an int or [h, w] in config.json; only tiling uses it
    double scalingFactor = 0.18215;
    std::optional<double> shiftFactor;               // null: none (SD3 0.0609, Flux 0.1159)
    std::optional<std::vector<double>> latentsMean;  // per channel (Playground v2.5 style)
    std::optional<std::vector<double>> latentsStd;
    bool forceUpcast = true;
    bool useQuantConv = true;
    bool usePostQuantConv = true;
    bool midBlockAddAttention = true;
    // latent_rgb_factors (Halfscope's own key, for fast previews): (latent_channels + 1) x 3
    // numbers, the last row the bias; empty when absent or of another size.
    std::vector<double> latentRgbFactors;

    // Number of resolution levels (down blocks); the encoder halves H and W levels()-1 times.
    int levels() const { return static_cast<int>(blockOutChannels.size()); }
    int downFactor() const { return 1 << (levels() - 1); }

    // Throws ConfigError naming the field for wrong types, unknown block types or activation,
    // inconsistent list lengths and channel counts not divisible by norm_num_groups.
    static AutoencoderKLConfig fromJson(const nlohmann::json& j);
};

// Latents as the denoiser produces them -> decoder input (what diffusers pipelines do before
// vae.decode): latents * std / scaling + mean when latents_mean/std are given, otherwise
// latents / scaling_factor + shift_factor.
torch::Tensor unscaleLatents(const torch::Tensor& latents, const AutoencoderKLConfig& cfg);
// The inverse: an encoder mean (or sample) -> latents in the denoiser's space.
torch::Tensor scaleLatents(const torch::Tensor& z, const AutoencoderKLConfig& cfg);

}  // namespace hs
