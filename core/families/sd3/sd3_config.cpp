#include "families/sd3/sd3_config.h"

#include <algorithm>

namespace hs {

bool SD3Config::dualAttention(int layer) const {
    return std::find(dualAttentionLayers.begin(), dualAttentionLayers.end(), layer) !=
           dualAttentionLayers.end();
}

SD3Config SD3Config::fromJson(const nlohmann::json& j) {
    SD3Config c;
    cfgRequire(j.is_object(), "expected a JSON object");
    cfgInts(j, {{"sample_size", c.sampleSize, 1, kMaxPositions},
                {"patch_size", c.patchSize, 1, kMaxPatch},
                {"in_channels", c.inChannels, 1, kMaxWidth}});
    c.outChannels = cfgInt(j, "out_channels", c.inChannels, 1, kMaxWidth);  // null -> in_channels
    cfgInts(j, {{"num_layers", c.numLayers, 1, kMaxLayers},
                {"attention_head_dim", c.attentionHeadDim, 1, kMaxWidth},
                {"num_attention_heads", c.numAttentionHeads, 1, kMaxHeads},
                {"joint_attention_dim", c.jointAttentionDim, 1, kMaxWidth}});
    c.captionProjectionDim =
        cfgInt(j, "caption_projection_dim", c.captionProjectionDim, 1, kMaxWidth);
    c.pooledProjectionDim = cfgInt(j, "pooled_projection_dim", c.pooledProjectionDim, 1, kMaxWidth);
    if (j.contains("pos_embed_max_size") && j["pos_embed_max_size"].is_null())
        cfgBadField("pos_embed_max_size",
                    "is null (an uncropped, unstored positional table): not supported; every "
                    "released SD3 model stores a cropped one");
    c.posEmbedMaxSize = cfgInt(j, "pos_embed_max_size", c.posEmbedMaxSize, 1, kMaxPositions);
    c.dualAttentionLayers =
        cfgIntList(j, "dual_attention_layers", c.dualAttentionLayers, 0, kMaxLayers);
    const std::string qk = cfgString(j, "qk_norm", "");
    if (qk == "rms_norm")
        c.qkRmsNorm = true;
    else if (!qk.empty())
        cfgBadField("qk_norm",
                    "is \"" + qk + "\": not supported (SD3 models use null or \"rms_norm\")");

    // The inner width heads x head_dim, and the matrices it sizes: the feed-forward (inner x 4
    // inner), SD3.5's norm1 (inner x 9 inner), the positional table (max^2 x inner).
    const int64_t inner = int64_t(c.numAttentionHeads) * c.attentionHeadDim;
    cfgRequire(inner <= kMaxWidth, "'num_attention_heads' x 'attention_head_dim' is " +
                                       std::to_string(inner) + ", more than " +
                                       std::to_string(kMaxWidth));
    cfgRequireElements("num_attention_heads x attention_head_dim", inner,
                       "9 x the same (SD35AdaLayerNormZeroX)", 9 * inner);
    cfgRequireElements("joint_attention_dim", c.jointAttentionDim, "caption_projection_dim",
                       c.captionProjectionDim);
    cfgRequireElements("pooled_projection_dim", c.pooledProjectionDim,
                       "num_attention_heads x attention_head_dim", inner);
    cfgRequireElements("in_channels x patch_size^2",
                       int64_t(c.inChannels) * c.patchSize * c.patchSize,
                       "num_attention_heads x attention_head_dim", inner);
    cfgRequireElements("out_channels x patch_size^2",
                       int64_t(c.outChannels) * c.patchSize * c.patchSize,
                       "num_attention_heads x attention_head_dim", inner);
    cfgRequireElements("pos_embed_max_size^2", int64_t(c.posEmbedMaxSize) * c.posEmbedMaxSize,
                       "num_attention_heads x attention_head_dim", inner);
    // The blocks take the projected text at the inner width (added_kv_proj_dim = dim).
    if (c.captionProjectionDim != inner)
        cfgBadField("caption_projection_dim",
                    "is " + std::to_string(c.captionProjectionDim) +
                        ", but the blocks take text at the inner width num_attention_heads x "
                        "attention_head_dim = " +
                        std::to_string(inner));
    // get_2d_sincos_pos_embed: half of the width per axis, each half [sin | cos].
    if (inner % 4 != 0)
        cfgBadField("attention_head_dim",
                    "x 'num_attention_heads' is " + std::to_string(inner) +
                        ": the 2-D sin-cos positional table needs a multiple of 4");
    if (c.sampleSize < c.patchSize)
        cfgBadField("sample_size", "is " + std::to_string(c.sampleSize) +
                                       ", smaller than 'patch_size' (" +
                                       std::to_string(c.patchSize) + ")");
    for (int l : c.dualAttentionLayers)
        if (l >= c.numLayers)
            cfgBadField("dual_attention_layers", "holds " + std::to_string(l) +
                                                     ", but 'num_layers' is " +
                                                     std::to_string(c.numLayers) + " (blocks 0.." +
                                                     std::to_string(c.numLayers - 1) + ")");
    return c;
}

}  // namespace hs
