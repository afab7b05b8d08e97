#include "families/wan_vae/wan_vae_config.h"

#include <torch/torch.h>

#include <algorithm>

#include "io/bounded_read.h"

namespace hs {

namespace {

// More levels than any released model (4) and few enough that 2^(levels - 1) stays small.
constexpr int kMaxLevels = 8;

const std::vector<double> kDefaultMean{-0.7571, -0.7089, -0.9113, 0.1075,  -0.1745, 0.9653,
                                       -0.1517, 1.5508,  0.4134,  -0.0715, 0.5517,  -0.3632,
                                       -0.1922, -0.9497, 0.2503,  -0.2921};
const std::vector<double> kDefaultStd{2.8184, 1.4541, 2.3275, 2.6558, 1.2196, 1.7708,
                                      2.6052, 2.0743, 3.2687, 2.1526, 2.8652, 1.5579,
                                      1.6382, 1.1253, 2.8251, 1.9160};

std::vector<double> doubleList(const nlohmann::json& j, const char* key,
                               const std::vector<double>& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_array() || v.size() > size_t(kMaxWidth))
        cfgBadField(key, "must be a list of numbers, got " + quoteJsonValue(v));
    std::vector<double> out;
    for (const auto& e : v) {
        if (!e.is_number()) cfgBadField(key, "must be a list of numbers, got " + quoteJsonValue(v));
        out.push_back(e.get<double>());
    }
    return out;
}

std::vector<bool> boolList(const nlohmann::json& j, const char* key,
                           const std::vector<bool>& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_array() || v.size() > size_t(kMaxLevels))
        cfgBadField(key, "must be a list of at most " + std::to_string(kMaxLevels) +
                             " booleans, got " + quoteJsonValue(v));
    std::vector<bool> out;
    for (const auto& e : v) {
        if (!e.is_boolean())
            cfgBadField(key, "must be a list of booleans, got " + quoteJsonValue(v));
        out.push_back(e.get<bool>());
    }
    return out;
}

}  // namespace

std::vector<int> WanVaeConfig::encoderDims() const {
    std::vector<int> d{baseDim};
    for (int m : dimMult) d.push_back(baseDim * m);
    return d;
}

std::vector<int> WanVaeConfig::decoderDims() const {
    std::vector<int> d{decoderBaseDim * dimMult.back()};
    for (auto it = dimMult.rbegin(); it != dimMult.rend(); ++it) d.push_back(decoderBaseDim * *it);
    return d;
}

WanVaeConfig WanVaeConfig::fromJson(const nlohmann::json& j) {
    if (!j.is_object())
        throw ConfigError("config.json: expected a JSON object, got " + quoteJsonValue(j));
    WanVaeConfig c;
    c.className = cfgString(j, "_class_name", c.className);
    const bool qwen = c.className == "AutoencoderKLQwenImage";
    if (!qwen && c.className != "AutoencoderKLWan")
        cfgBadField("_class_name",
                    "is \"" + c.className +
                        "\"; this loader reads AutoencoderKLWan and AutoencoderKLQwenImage");
    c.baseDim = cfgInt(j, "base_dim", c.baseDim, 1, kMaxWidth);
    c.decoderBaseDim = qwen ? c.baseDim : cfgInt(j, "decoder_base_dim", c.baseDim, 1, kMaxWidth);
    c.zDim = cfgInt(j, "z_dim", c.zDim, 1, kMaxWidth);
    c.dimMult = cfgIntList(j, "dim_mult", c.dimMult, 1, kMaxWidth);
    c.numResBlocks = cfgInt(j, "num_res_blocks", c.numResBlocks, 1, kMaxLayers);
    c.attnScales = doubleList(j, "attn_scales", {});
    c.temperalDownsample = boolList(j, "temperal_downsample", c.temperalDownsample);
    if (qwen) {
        c.inChannels = c.outChannels = cfgInt(j, "input_channels", 3, 1, kMaxWidth);
    } else {
        c.inChannels = cfgInt(j, "in_channels", 3, 1, kMaxWidth);
        c.outChannels = cfgInt(j, "out_channels", 3, 1, kMaxWidth);
        if (cfgBool(j, "is_residual", false))
            cfgBadField("is_residual",
                        "is true (Wan 2.2's residual up/down blocks); supported: false");
        if (j.contains("patch_size") && !j["patch_size"].is_null() &&
            cfgInt(j, "patch_size", 1, 1, kMaxPatch) != 1)
            cfgBadField("patch_size",
                        "is " + quoteJsonValue(j["patch_size"]) + " (Wan 2.2); supported: null");
    }

    if (c.dimMult.empty() || c.levels() > kMaxLevels)
        cfgBadField("dim_mult", "must have 1 to " + std::to_string(kMaxLevels) + " entries, has " +
                                    std::to_string(c.dimMult.size()));
    for (size_t i = 0; i < c.dimMult.size(); ++i) {
        const int64_t widest = int64_t(std::max(c.baseDim, c.decoderBaseDim)) * c.dimMult[i];
        if (widest > kMaxWidth)
            cfgBadField("dim_mult[" + std::to_string(i) + "]", "gives " + std::to_string(widest) +
                                                                   " channels, more than " +
                                                                   std::to_string(kMaxWidth));
    }
    // A 3x3x3 causal convolution of the widest level: ch x 27 ch weights.
    int64_t widest = std::max(c.baseDim, c.decoderBaseDim);
    for (int m : c.dimMult)
        widest = std::max(widest, int64_t(std::max(c.baseDim, c.decoderBaseDim)) * m);
    cfgRequireElements("the widest level (base_dim x dim_mult)", widest,
                       "27 x the same (3x3x3 convolution)", 27 * widest);
    if (c.temperalDownsample.size() != c.dimMult.size() - 1)
        cfgBadField("temperal_downsample", "has " + std::to_string(c.temperalDownsample.size()) +
                                               " entries; dim_mult's " +
                                               std::to_string(c.levels()) + " levels need " +
                                               std::to_string(c.levels() - 1));

    const bool defaults = c.zDim == int(kDefaultMean.size());
    for (const char* key : {"latents_mean", "latents_std"}) {
        const bool given = j.contains(key) && !j[key].is_null();
        if (!given && !defaults)
            cfgBadField(key, "is not given, and diffusers' default has 16 entries, not z_dim (" +
                                 std::to_string(c.zDim) + ")");
        auto v =
            doubleList(j, key, std::string(key) == "latents_mean" ? kDefaultMean : kDefaultStd);
        if (int(v.size()) != c.zDim)
            cfgBadField(key, "has " + std::to_string(v.size()) + " entries, z_dim is " +
                                 std::to_string(c.zDim));
        (std::string(key) == "latents_mean" ? c.latentsMean : c.latentsStd) = std::move(v);
    }
    for (size_t i = 0; i < c.latentsStd.size(); ++i)
        if (c.latentsStd[i] == 0.0)
            cfgBadField("latents_std[" + std::to_string(i) + "]", "must not be 0");
    return c;
}

namespace {

// Per-channel statistics as [1, C, 1, 1] float32 on x's device.
torch::Tensor channelVectorF32(const std::vector<double>& v, const torch::Tensor& x) {
    return torch::tensor(v, torch::kFloat64)
        .to(x.device(), torch::kFloat32)
        .view({1, static_cast<int64_t>(v.size()), 1, 1});
}

}  // namespace

torch::Tensor wanUnscaleLatents(const torch::Tensor& latents, const WanVaeConfig& cfg) {
    // diffusers: latents_std = 1.0 / torch.tensor(std).to(dtype); latents / latents_std + mean
    const auto dt = latents.scalar_type();
    auto recip = 1.0 / channelVectorF32(cfg.latentsStd, latents).to(dt);  // [1, C, 1, 1]
    return latents / recip + channelVectorF32(cfg.latentsMean, latents).to(dt);
}

torch::Tensor wanScaleLatents(const torch::Tensor& z, const WanVaeConfig& cfg) {
    const auto dt = z.scalar_type();
    auto recip = 1.0 / channelVectorF32(cfg.latentsStd, z).to(dt);  // [1, C, 1, 1]
    return (z - channelVectorF32(cfg.latentsMean, z).to(dt)) * recip;
}

}  // namespace hs
