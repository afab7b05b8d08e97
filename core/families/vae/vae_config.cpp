#include "families/vae/vae_config.h"

#include <torch/torch.h>

#include <algorithm>

#include "io/bounded_read.h"
#include "models/common/config.h"

namespace hs {

namespace {

std::optional<std::vector<double>> optDoubleList(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    const auto& v = j[key];
    std::vector<double> out;
    if (v.is_array()) {
        for (const auto& e : v) {
            if (!e.is_number())
                cfgBadField(key, "must be a list of numbers, got " + quoteJsonValue(v));
            out.push_back(e.get<double>());
        }
        return out;
    }
    cfgBadField(key, "must be null or a list of numbers, got " + quoteJsonValue(v));
}

void checkTypes(const std::vector<std::string>& types, const char* field,
                const std::string& supported) {
    for (size_t i = 0; i < types.size(); ++i) {
        if (types[i] != supported)
            cfgBadField(
                std::string(field) + "[" + std::to_string(i) + "]",
                "is \"" + types[i] + "\"; AutoencoderKL supports only \"" + supported + "\"");
    }
}

}  // namespace

namespace {

// See AutoencoderKLConfig::latentRgbFactors: a preview aid, so a malformed list is left out
// rather than refused.
std::vector<double> rgbFactorsOf(const nlohmann::json& config, int64_t channels) {
    if (!config.contains("latent_rgb_factors") || !config["latent_rgb_factors"].is_array())
        return {};
    std::vector<double> f;
    for (const auto& v : config["latent_rgb_factors"]) {
        if (!v.is_number()) return {};
        f.push_back(v.get<double>());
    }
    if (int64_t(f.size()) != (channels + 1) * 3) return {};
    return f;
}

}  // namespace

AutoencoderKLConfig AutoencoderKLConfig::fromJson(const nlohmann::json& j) {
    if (!j.is_object())
        throw ConfigError("config.json: expected a JSON object, got " + quoteJsonValue(j));
    const std::string cls = cfgString(j, "_class_name", "AutoencoderKL");
    if (cls != "AutoencoderKL")
        cfgBadField("_class_name", "is \"" + cls + "\"; this loader reads AutoencoderKL configs");

    AutoencoderKLConfig c;
    c.inChannels = cfgInt(j, "in_channels", c.inChannels, 1, kMaxWidth);
    c.outChannels = cfgInt(j, "out_channels", c.outChannels, 1, kMaxWidth);
    c.downBlockTypes = cfgStringList(j, "down_block_types", c.downBlockTypes);
    c.upBlockTypes = cfgStringList(j, "up_block_types", c.upBlockTypes);
    c.blockOutChannels = cfgIntList(j, "block_out_channels", c.blockOutChannels, 1, kMaxWidth);
    c.layersPerBlock = cfgInt(j, "layers_per_block", c.layersPerBlock, 1, kMaxLayers);
    c.actFn = cfgString(j, "act_fn", c.actFn);
    c.latentChannels = cfgInt(j, "latent_channels", c.latentChannels, 1, kMaxWidth);
    c.normNumGroups = cfgInt(j, "norm_num_groups", c.normNumGroups, 1, kMaxHeads);
    if (j.contains("sample_size") && j["sample_size"].is_array())
        c.sampleSize = cfgIntList(j, "sample_size", c.sampleSize, 1, kMaxPositions);
    else
        c.sampleSize = {cfgInt(j, "sample_size", c.sampleSize.front(), 1, kMaxPositions)};
    c.scalingFactor = cfgDouble(j, "scaling_factor", c.scalingFactor);
    if (j.contains("shift_factor") && !j["shift_factor"].is_null())
        c.shiftFactor = cfgDouble(j, "shift_factor", 0.0);
    c.latentsMean = optDoubleList(j, "latents_mean");
    c.latentsStd = optDoubleList(j, "latents_std");
    c.forceUpcast = cfgBool(j, "force_upcast", c.forceUpcast);
    c.latentRgbFactors = rgbFactorsOf(j, c.latentChannels);
    c.useQuantConv = cfgBool(j, "use_quant_conv", c.useQuantConv);
    c.usePostQuantConv = cfgBool(j, "use_post_quant_conv", c.usePostQuantConv);
    c.midBlockAddAttention = cfgBool(j, "mid_block_add_attention", c.midBlockAddAttention);

    checkTypes(c.downBlockTypes, "down_block_types", "DownEncoderBlock2D");
    checkTypes(c.upBlockTypes, "up_block_types", "UpDecoderBlock2D");
    if (c.actFn != "silu" && c.actFn != "swish")
        cfgBadField("act_fn", "is \"" + c.actFn + "\"; supported: \"silu\" (alias \"swish\")");
    if (c.blockOutChannels.empty()) cfgBadField("block_out_channels", "must not be empty");
    const size_t levels = c.blockOutChannels.size();
    if (c.downBlockTypes.size() != levels)
        cfgBadField("down_block_types", "has " + std::to_string(c.downBlockTypes.size()) +
                                            " entries, block_out_channels has " +
                                            std::to_string(levels));
    if (c.upBlockTypes.size() != levels)
        cfgBadField("up_block_types", "has " + std::to_string(c.upBlockTypes.size()) +
                                          " entries, block_out_channels has " +
                                          std::to_string(levels));
    if (c.normNumGroups <= 0) cfgBadField("norm_num_groups", "must be positive");
    for (size_t i = 0; i < levels; ++i) {
        const int ch = c.blockOutChannels[i];
        if (ch <= 0 || ch % c.normNumGroups != 0)
            cfgBadField("block_out_channels[" + std::to_string(i) + "]",
                        "is " + std::to_string(ch) +
                            ", not a positive multiple of norm_num_groups (" +
                            std::to_string(c.normNumGroups) + ")");
    }
    // A 3x3 convolution of the widest level: ch x 9 ch weights.
    const int64_t widest = *std::max_element(c.blockOutChannels.begin(), c.blockOutChannels.end());
    cfgRequireElements("block_out_channels (the largest)", widest, "9 x the same (3x3 convolution)",
                       9 * widest);
    if (c.layersPerBlock < 1) cfgBadField("layers_per_block", "must be at least 1");
    if (c.inChannels < 1) cfgBadField("in_channels", "must be positive");
    if (c.outChannels < 1) cfgBadField("out_channels", "must be positive");
    if (c.latentChannels < 1) cfgBadField("latent_channels", "must be positive");
    if (c.scalingFactor == 0.0) cfgBadField("scaling_factor", "must not be 0");
    if (c.latentsMean.has_value() != c.latentsStd.has_value())
        cfgBadField(c.latentsMean ? "latents_std" : "latents_mean",
                    "must be given together with the other of latents_mean/latents_std");
    if (c.latentsMean) {
        const auto n = static_cast<size_t>(c.latentChannels);
        if (c.latentsMean->size() != n)
            cfgBadField("latents_mean", "needs latent_channels entries");
        if (c.latentsStd->size() != n) cfgBadField("latents_std", "needs latent_channels entries");
    }
    return c;
}

namespace {

// Per-channel statistics as [1, C, 1, 1] in x's dtype and device.
torch::Tensor channelVector(const std::vector<double>& v, const torch::Tensor& x) {
    return torch::tensor(v, torch::kFloat64)
        .to(x.device(), x.scalar_type())
        .view({1, static_cast<int64_t>(v.size()), 1, 1});
}

}  // namespace

torch::Tensor unscaleLatents(const torch::Tensor& latents, const AutoencoderKLConfig& cfg) {
    if (cfg.latentsMean && cfg.latentsStd) {  // [B, C, h, w]
        return latents * channelVector(*cfg.latentsStd, latents) / cfg.scalingFactor +
               channelVector(*cfg.latentsMean, latents);
    }
    auto z = latents / cfg.scalingFactor;
    return cfg.shiftFactor ? z + *cfg.shiftFactor : z;
}

torch::Tensor scaleLatents(const torch::Tensor& z, const AutoencoderKLConfig& cfg) {
    if (cfg.latentsMean && cfg.latentsStd) {  // [B, C, h, w]
        return (z - channelVector(*cfg.latentsMean, z)) * cfg.scalingFactor /
               channelVector(*cfg.latentsStd, z);
    }
    auto s = cfg.shiftFactor ? z - *cfg.shiftFactor : z;
    return s * cfg.scalingFactor;
}

}  // namespace hs
