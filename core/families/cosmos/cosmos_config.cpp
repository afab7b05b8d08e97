#include "families/cosmos/cosmos_config.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "io/bounded_read.h"

namespace hs {

namespace {

std::array<int, 3> threeInts(const nlohmann::json& j, const char* key, std::array<int, 3> fallback,
                             int lo, int hi) {
    auto v = cfgIntList(j, key, {fallback[0], fallback[1], fallback[2]}, lo, hi);
    cfgRequire(v.size() == 3, std::string("'") + key + "' must have 3 entries (t, h, w), got " +
                                  std::to_string(v.size()));
    return {v[0], v[1], v[2]};
}

std::array<double, 3> threeDoubles(const nlohmann::json& j, const char* key,
                                   std::array<double, 3> fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    cfgRequire(v.is_array() && v.size() == 3,
               std::string("'") + key + "' must be a list of 3 numbers, got " + quoteJsonValue(v));
    std::array<double, 3> out{};
    for (size_t i = 0; i < 3; ++i) {
        cfgRequire(v[i].is_number(), std::string("'") + key +
                                         "' must be a list of 3 numbers, got " + quoteJsonValue(v));
        out[i] = v[i].get<double>();
        cfgRequire(std::isfinite(out[i]) && out[i] > 0 && out[i] <= 1e6,
                   std::string("'") + key + "' entries must be positive and at most 1e6");
    }
    return out;
}

}  // namespace

int CosmosConfig::maxPatchedPositions() const {
    int m = 0;
    for (int i = 0; i < 3; ++i) m = std::max(m, maxSize[i] / patchSize[i]);
    return m;
}

CosmosConfig CosmosConfig::fromJson(const nlohmann::json& j) {
    CosmosConfig c;
    cfgRequire(j.is_object(), "expected a JSON object");
    cfgInts(j, {{"in_channels", c.inChannels, 1, kMaxWidth},
                {"out_channels", c.outChannels, 1, kMaxWidth},
                {"num_attention_heads", c.numAttentionHeads, 1, kMaxHeads},
                {"attention_head_dim", c.attentionHeadDim, 1, kMaxWidth},
                {"num_layers", c.numLayers, 0, kMaxLayers}});
    c.mlpRatio = cfgDouble(j, "mlp_ratio", c.mlpRatio);
    c.textEmbedDim = cfgInt(j, "text_embed_dim", c.textEmbedDim, 1, kMaxWidth);
    c.adalnLoraDim = cfgInt(j, "adaln_lora_dim", c.adalnLoraDim, 1, kMaxWidth);
    c.maxSize = threeInts(j, "max_size", c.maxSize, 1, kMaxPositions);
    c.patchSize = threeInts(j, "patch_size", c.patchSize, 1, kMaxPatch);
    c.ropeScale = threeDoubles(j, "rope_scale", c.ropeScale);
    c.concatPaddingMask = cfgBool(j, "concat_padding_mask", c.concatPaddingMask);

    cfgRequire(
        int64_t(c.numAttentionHeads) * c.attentionHeadDim <= kMaxWidth,
        "'num_attention_heads' x 'attention_head_dim' is more than " + std::to_string(kMaxWidth));
    // CosmosRotaryPosEmbed splits the head into t, h, w parts of even width, h and w
    // (head_dim // 6 * 2) more than 2 wide (its NTK exponent divides by width - 2).
    cfgRequire(c.attentionHeadDim % 2 == 0 && c.attentionHeadDim >= 12,
               "'attention_head_dim' must be even and at least 12 (3-axis RoPE), got " +
                   std::to_string(c.attentionHeadDim));
    cfgRequire(std::isfinite(c.mlpRatio) && c.mlpRatio > 0 &&
                   double(c.innerDim()) * c.mlpRatio <= double(kMaxWidth) && c.ffDim() >= 1,
               "'mlp_ratio' must be positive with a feed-forward width of 1.." +
                   std::to_string(kMaxWidth));
    cfgRequireElements("num_attention_heads x attention_head_dim", c.innerDim(),
                       "the feed-forward width", c.ffDim());
    cfgRequireElements("text_embed_dim", c.textEmbedDim, "num_attention_heads x attention_head_dim",
                       c.innerDim());
    cfgRequire(int64_t(c.patchInDim()) <= kMaxWidth && int64_t(c.outDim()) <= kMaxWidth,
               "'patch_size' volume x channels is more than " + std::to_string(kMaxWidth));
    for (int i = 0; i < 3; ++i)
        cfgRequire(c.maxSize[i] >= c.patchSize[i],
                   "'max_size' must be at least 'patch_size' on every axis");

    const std::string pos =
        j.contains("extra_pos_embed_type") && j["extra_pos_embed_type"].is_string()
            ? j["extra_pos_embed_type"].get<std::string>()
            : "";
    // diffusers' default is "learnable" (Cosmos 1.0); Predict2 configs say null.
    cfgRequire(j.contains("extra_pos_embed_type") && j["extra_pos_embed_type"].is_null(),
               "'extra_pos_embed_type' " +
                   (pos.empty() ? std::string("(default 'learnable')") : "'" + pos + "'") +
                   " is not supported (only null, as in Cosmos-Predict2)");
    cfgRequire(!cfgBool(j, "use_crossattn_projection", false),
               "'use_crossattn_projection' true (Cosmos 2.5) is not supported");
    cfgRequire(!j.contains("controlnet_block_every_n") || j["controlnet_block_every_n"].is_null(),
               "'controlnet_block_every_n' (Cosmos Transfer ControlNet) is not supported");
    cfgRequire(cfgInt(j, "img_context_dim_in", 0, 0, kMaxWidth) == 0,
               "'img_context_dim_in' (image context, Cosmos 2.5) is not supported");
    return c;
}

}  // namespace hs
