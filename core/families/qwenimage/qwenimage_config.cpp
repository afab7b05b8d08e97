#include "families/qwenimage/qwenimage_config.h"

#include <nlohmann/json.hpp>
#include <numeric>

namespace hs {

QwenImageConfig QwenImageConfig::fromJson(const nlohmann::json& j) {
    QwenImageConfig c;
    cfgRequire(j.is_object(), "expected a JSON object");
    cfgInts(j, {{"patch_size", c.patchSize, 1, kMaxPatch},
                {"in_channels", c.inChannels, 1, kMaxWidth},
                {"out_channels", c.outChannels, 1, kMaxWidth}});
    if (j.contains("out_channels") && j["out_channels"].is_null()) c.outChannels = c.inChannels;
    cfgInts(j, {{"num_layers", c.numLayers, 0, kMaxLayers},
                {"attention_head_dim", c.attentionHeadDim, 2, kMaxWidth},
                {"num_attention_heads", c.numAttentionHeads, 1, kMaxHeads},
                {"joint_attention_dim", c.jointAttentionDim, 1, kMaxWidth}});
    c.axesDimsRope = cfgIntList(j, "axes_dims_rope", c.axesDimsRope, 2, kMaxWidth);

    cfgRequire(
        int64_t(c.numAttentionHeads) * c.attentionHeadDim <= kMaxWidth,
        "'num_attention_heads' x 'attention_head_dim' is more than " + std::to_string(kMaxWidth));
    const int64_t inner = int64_t(c.numAttentionHeads) * c.attentionHeadDim;
    cfgRequireElements("num_attention_heads x attention_head_dim", inner,
                       "4 x the same (feed-forward)", 4 * inner);
    cfgRequireElements("joint_attention_dim", c.jointAttentionDim,
                       "num_attention_heads x attention_head_dim", inner);
    cfgRequire(int64_t(c.patchSize) * c.patchSize * c.outChannels <= kMaxWidth,
               "'patch_size'^2 x 'out_channels' is more than " + std::to_string(kMaxWidth));
    // QwenEmbedRope: three axes (frame, height, width), each an even width, filling the head.
    cfgRequire(c.axesDimsRope.size() == 3,
               "'axes_dims_rope' must have 3 entries (frame, height, "
               "width), got " +
                   std::to_string(c.axesDimsRope.size()));
    for (int d : c.axesDimsRope)
        cfgRequire(d % 2 == 0, "'axes_dims_rope' entries must be even, got " + std::to_string(d));
    const int sum = std::accumulate(c.axesDimsRope.begin(), c.axesDimsRope.end(), 0);
    cfgRequire(sum == c.attentionHeadDim, "'axes_dims_rope' must sum to 'attention_head_dim' (" +
                                              std::to_string(c.attentionHeadDim) + "), got " +
                                              std::to_string(sum));
    // guidance_embeds builds nothing in diffusers (its forward never receives a guidance from
    // the pipelines): accepted and ignored.
    cfgBool(j, "guidance_embeds", false);
    cfgRequire(!cfgBool(j, "zero_cond_t", false),
               "'zero_cond_t' true (Qwen-Image-Edit-2511's per-token condition modulation) is "
               "not supported");
    cfgRequire(!cfgBool(j, "use_additional_t_cond", false),
               "'use_additional_t_cond' true (Qwen-Image-Layered's addition_t_embedding) is not "
               "supported");
    cfgRequire(!cfgBool(j, "use_layer3d_rope", false),
               "'use_layer3d_rope' true (QwenEmbedLayer3DRope, Qwen-Image-Layered) is not "
               "supported");
    return c;
}

}  // namespace hs
