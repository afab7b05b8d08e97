#include "families/flux/flux_config.h"

#include <numeric>

#include "models/common/config.h"

namespace hs {

namespace {

void require(bool ok, const std::string& what) {
    if (!ok) throw ConfigError("config.json: " + what);
}

}  // namespace

FluxConfig FluxConfig::fromJson(const nlohmann::json& j) {
    FluxConfig c;
    if (!j.is_object()) throw ConfigError("config.json: expected a JSON object");
    c.patchSize = cfgInt(j, "patch_size", c.patchSize, 1, kMaxPatch);
    c.inChannels = cfgInt(j, "in_channels", c.inChannels, 1, kMaxWidth);
    c.outChannels = cfgInt(j, "out_channels", c.inChannels, 1, kMaxWidth);  // null -> in_channels
    cfgInts(j, {{"num_layers", c.numLayers, 0, kMaxLayers},
                {"num_single_layers", c.numSingleLayers, 0, kMaxLayers},
                {"attention_head_dim", c.attentionHeadDim, 2, kMaxWidth},
                {"num_attention_heads", c.numAttentionHeads, 1, kMaxHeads},
                {"joint_attention_dim", c.jointAttentionDim, 1, kMaxWidth},
                {"pooled_projection_dim", c.pooledProjectionDim, 1, kMaxWidth}});
    c.guidanceEmbeds = cfgBool(j, "guidance_embeds", c.guidanceEmbeds);
    c.axesDimsRope = cfgIntList(j, "axes_dims_rope", c.axesDimsRope, 2, kMaxWidth);

    // The inner width heads x head_dim, and the feed-forward matrix (inner x 4 inner) it sizes.
    const int64_t inner = int64_t(c.numAttentionHeads) * c.attentionHeadDim;
    require(inner <= kMaxWidth, "'num_attention_heads' x 'attention_head_dim' is " +
                                    std::to_string(inner) + ", more than " +
                                    std::to_string(kMaxWidth));
    cfgRequireElements("num_attention_heads x attention_head_dim", inner,
                       "4 x the same (feed-forward)", 4 * inner);
    cfgRequireElements("joint_attention_dim", c.jointAttentionDim,
                       "num_attention_heads x attention_head_dim", inner);
    require(c.patchSize >= 1, "'patch_size' must be >= 1");
    require(c.inChannels >= 1, "'in_channels' must be >= 1");
    require(c.outChannels >= 1, "'out_channels' must be >= 1");
    require(c.numLayers >= 0, "'num_layers' must be >= 0");
    require(c.numSingleLayers >= 0, "'num_single_layers' must be >= 0");
    require(c.numAttentionHeads >= 1, "'num_attention_heads' must be >= 1");
    require(c.attentionHeadDim >= 2 && c.attentionHeadDim % 2 == 0,
            "'attention_head_dim' must be a positive even number");
    require(c.jointAttentionDim >= 1, "'joint_attention_dim' must be >= 1");
    require(c.pooledProjectionDim >= 1, "'pooled_projection_dim' must be >= 1");
    require(!c.axesDimsRope.empty(), "'axes_dims_rope' must not be empty");
    for (int d : c.axesDimsRope)
        require(d >= 2 && d % 2 == 0, "'axes_dims_rope' entries must be positive even numbers");
    const int sum = std::accumulate(c.axesDimsRope.begin(), c.axesDimsRope.end(), 0);
    require(sum == c.attentionHeadDim, "'axes_dims_rope' must sum to 'attention_head_dim' (" +
                                           std::to_string(c.attentionHeadDim) + "), got " +
                                           std::to_string(sum));
    return c;
}

}  // namespace hs
