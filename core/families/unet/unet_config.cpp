#include "families/unet/unet_config.h"

#include <algorithm>

#include "io/bounded_read.h"

namespace hs {

namespace {

// A value in a message: short and never recursive, whatever the file holds.
std::string shown(const nlohmann::json& v) {
    return quoteJsonValue(v);
}

bool isNull(const nlohmann::json& j, const char* key) {
    return !j.contains(key) || j[key].is_null();
}

// A field that changes the computation in a way this family does not implement: it must be
// absent, null or equal to `allowed`.
void requireValue(const nlohmann::json& j, const char* key, const nlohmann::json& allowed,
                  const std::string& what) {
    if (isNull(j, key) || j[key] == allowed) return;
    cfgBadField(key, "is " + shown(j[key]) + "; " + what);
}

void requireNull(const nlohmann::json& j, const char* key, const std::string& what) {
    if (isNull(j, key)) return;
    cfgBadField(key, "is " + shown(j[key]) + "; " + what);
}

int intIn(const nlohmann::json& v, const std::string& field, int lo, int hi) {
    if (!v.is_number_integer()) cfgBadField(field, "must be an integer, got " + shown(v));
    // nlohmann stores non-negative integers unsigned: 0 must still fail a lower bound of 1.
    const bool outside = v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(int64_t(hi)) ||
                                                      int64_t(v.get<uint64_t>()) < lo
                                                : v.get<int64_t>() > hi || v.get<int64_t>() < lo;
    if (outside)
        cfgBadField(field, "is " + shown(v) + ", outside " + std::to_string(lo) + ".." +
                               std::to_string(hi));
    return int(v.get<int64_t>());
}

// An int (repeated n times) or a list of n ints, as diffusers accepts per-block values.
std::vector<int> perBlock(const nlohmann::json& j, const char* key, int fallback, size_t n, int lo,
                          int hi) {
    if (isNull(j, key)) return std::vector<int>(n, fallback);
    const auto& v = j[key];
    if (v.is_array()) {
        if (v.size() != n)
            cfgBadField(key, "has " + std::to_string(v.size()) +
                                 " entries, block_out_channels has " + std::to_string(n));
        std::vector<int> out;
        for (size_t i = 0; i < n; ++i)
            out.push_back(intIn(v[i], std::string(key) + "[" + std::to_string(i) + "]", lo, hi));
        return out;
    }
    return std::vector<int>(n, intIn(v, key, lo, hi));
}

// One block's transformer layers per resnet: an int (repeated) or a list with at least `count`
// entries (diffusers indexes the first `count`).
std::vector<int> layersOf(const nlohmann::json& v, const std::string& field, int count) {
    if (!v.is_array()) return std::vector<int>(size_t(count), intIn(v, field, 0, kMaxLayers));
    if (int(v.size()) < count)
        cfgBadField(field, "has " + std::to_string(v.size()) + " entries; the block has " +
                               std::to_string(count) + " resnets");
    std::vector<int> out;
    for (int k = 0; k < count; ++k)
        out.push_back(intIn(v[size_t(k)], field + "[" + std::to_string(k) + "]", 0, kMaxLayers));
    return out;
}

void checkTypes(const std::vector<std::string>& types, const char* field,
                const std::vector<std::string>& supported) {
    for (size_t i = 0; i < types.size(); ++i) {
        bool ok = false;
        for (const auto& s : supported) ok |= types[i] == s;
        if (ok) continue;
        std::string list;
        for (const auto& s : supported) list += (list.empty() ? "\"" : ", \"") + s + "\"";
        cfgBadField(std::string(field) + "[" + std::to_string(i) + "]",
                    "is \"" + types[i] + "\"; supported: " + list);
    }
}

void readTransformerLayers(const nlohmann::json& j, UNetConfig& c) {
    const size_t n = c.blockOutChannels.size();
    const char* key = "transformer_layers_per_block";
    nlohmann::json tl = isNull(j, key) ? nlohmann::json(1) : j[key];
    if (!tl.is_array()) tl = nlohmann::json::array_t(n, tl);
    if (tl.size() != n)
        cfgBadField(key, "has " + std::to_string(tl.size()) + " entries, block_out_channels has " +
                             std::to_string(n));
    const char* rkey = "reverse_transformer_layers_per_block";
    bool nested = false;
    for (const auto& e : tl) nested |= e.is_array();
    if (nested && isNull(j, rkey))
        cfgBadField(rkey,
                    "must be given when transformer_layers_per_block holds lists (an asymmetric "
                    "UNet), as diffusers requires");
    for (size_t i = 0; i < n; ++i)
        c.downTransformerLayers.push_back(
            layersOf(tl[i], std::string(key) + "[" + std::to_string(i) + "]", c.layersPerBlock[i]));
    c.midTransformerLayers = layersOf(tl[n - 1], std::string(key) + "[-1]", 1).front();
    nlohmann::json rev;
    std::string revName = rkey;
    if (isNull(j, rkey)) {
        rev = nlohmann::json::array();
        for (size_t i = n; i-- > 0;) rev.push_back(tl[i]);
        revName = key;  // reversed transformer_layers_per_block
    } else {
        rev = j[rkey];
        if (!rev.is_array() || rev.size() != n)
            cfgBadField(rkey, "must be a list with one entry per up block (" + std::to_string(n) +
                                  "), got " + shown(rev));
    }
    for (size_t i = 0; i < n; ++i)
        c.upTransformerLayers.push_back(layersOf(rev[i], revName + "[" + std::to_string(i) + "]",
                                                 c.layersPerBlock[n - 1 - i] + 1));
}

void rejectUnsupported(const nlohmann::json& j) {
    requireNull(j, "class_embed_type", "class embeddings are not supported (only null)");
    requireNull(j, "num_class_embeds", "class embeddings are not supported (only null)");
    requireNull(j, "encoder_hid_dim", "an encoder_hid_proj is not supported (only null)");
    requireNull(j, "encoder_hid_dim_type", "an encoder_hid_proj is not supported (only null)");
    requireNull(j, "time_embedding_act_fn", "only null is supported");
    requireNull(j, "timestep_post_act", "only null is supported");
    requireNull(j, "time_cond_proj_dim", "timestep conditioning (LCM) is not supported");
    requireNull(j, "cross_attention_norm", "only null is supported");
    requireValue(j, "attention_type", "default", "only \"default\" is supported");
    requireValue(j, "dual_cross_attention", false, "only false is supported");
    requireValue(j, "resnet_time_scale_shift", "default", "only \"default\" is supported");
    requireValue(j, "time_embedding_type", "positional", "only \"positional\" is supported");
    requireValue(j, "conv_in_kernel", 3, "only 3 is supported");
    requireValue(j, "conv_out_kernel", 3, "only 3 is supported");
    requireValue(j, "class_embeddings_concat", false, "only false is supported");
    if (!isNull(j, "only_cross_attention")) {
        const auto& v = j["only_cross_attention"];
        bool any = v.is_boolean() ? v.get<bool>() : true;
        if (v.is_array()) {
            any = false;
            for (const auto& e : v) any |= !e.is_boolean() || e.get<bool>();
        }
        if (any)
            cfgBadField("only_cross_attention", "is " + shown(v) + "; only false is supported");
    }
    if (j.contains("norm_num_groups") && j["norm_num_groups"].is_null())
        cfgBadField("norm_num_groups", "is null; the UNet needs group norms (an integer)");
}

}  // namespace

int UNetConfig::downFactor() const {
    return 1 << (levels() - 1);
}

int UNetConfig::timeEmbedDim() const {
    return timeEmbeddingDim > 0 ? timeEmbeddingDim : 4 * blockOutChannels.front();
}

int UNetConfig::contextDim() const {
    const int n = levels();
    for (int i = 0; i < n; ++i)
        if (isCrossAttnDown(i)) return crossAttentionDim[i];
    if (hasMidBlock()) return crossAttentionDim.back();
    for (int i = 0; i < n; ++i)
        if (isCrossAttnUp(i)) return crossAttentionDim[n - 1 - i];
    return crossAttentionDim.front();
}

UNetConfig unetConfigFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw ConfigError("config.json: expected a JSON object, got " + shown(j));
    const std::string cls = cfgString(j, "_class_name", "UNet2DConditionModel");
    if (cls != "UNet2DConditionModel")
        cfgBadField("_class_name",
                    "is \"" + cls + "\"; this loader reads UNet2DConditionModel configs");
    rejectUnsupported(j);

    UNetConfig c;
    c.inChannels = cfgInt(j, "in_channels", c.inChannels, 1, kMaxWidth);
    c.outChannels = cfgInt(j, "out_channels", c.outChannels, 1, kMaxWidth);
    if (j.contains("sample_size") && j["sample_size"].is_array())
        c.sampleSize = cfgIntList(j, "sample_size", {c.sampleSize}, 1, kMaxPositions).front();
    else
        c.sampleSize = cfgInt(j, "sample_size", c.sampleSize, 1, kMaxPositions);
    c.downBlockTypes = cfgStringList(
        j, "down_block_types",
        {"CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"});
    c.upBlockTypes = cfgStringList(
        j, "up_block_types",
        {"UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"});
    if (j.contains("mid_block_type") && j["mid_block_type"].is_null())
        c.midBlockType.clear();
    else
        c.midBlockType = cfgString(j, "mid_block_type", c.midBlockType);
    c.blockOutChannels = cfgIntList(j, "block_out_channels", {320, 640, 1280, 1280}, 1, kMaxWidth);
    const std::string act = cfgString(j, "act_fn", "silu");
    if (act != "silu" && act != "swish")
        cfgBadField("act_fn", "is \"" + act + "\"; supported: \"silu\" (alias \"swish\")");

    checkTypes(c.downBlockTypes, "down_block_types", {"DownBlock2D", "CrossAttnDownBlock2D"});
    checkTypes(c.upBlockTypes, "up_block_types", {"UpBlock2D", "CrossAttnUpBlock2D"});
    if (c.hasMidBlock() && c.midBlockType != "UNetMidBlock2DCrossAttn")
        cfgBadField("mid_block_type", "is \"" + c.midBlockType +
                                          "\"; supported: \"UNetMidBlock2DCrossAttn\" or null");
    const size_t n = c.blockOutChannels.size();
    if (n == 0) cfgBadField("block_out_channels", "must not be empty");
    if (c.downBlockTypes.size() != n)
        cfgBadField("down_block_types", "has " + std::to_string(c.downBlockTypes.size()) +
                                            " entries, block_out_channels has " +
                                            std::to_string(n));
    if (c.upBlockTypes.size() != n)
        cfgBadField("up_block_types", "has " + std::to_string(c.upBlockTypes.size()) +
                                          " entries, block_out_channels has " + std::to_string(n));

    c.layersPerBlock = perBlock(j, "layers_per_block", 2, n, 1, kMaxLayers);
    c.crossAttentionDim = perBlock(j, "cross_attention_dim", 1280, n, 1, kMaxWidth);
    // diffusers: num_attention_heads = num_attention_heads or attention_head_dim.
    c.numAttentionHeads = isNull(j, "num_attention_heads")
                              ? perBlock(j, "attention_head_dim", 8, n, 1, kMaxHeads)
                              : perBlock(j, "num_attention_heads", 8, n, 1, kMaxHeads);
    readTransformerLayers(j, c);

    c.additionEmbedType = cfgString(j, "addition_embed_type", "");
    if (!c.additionEmbedType.empty() && c.additionEmbedType != "text_time")
        cfgBadField("addition_embed_type",
                    "is \"" + c.additionEmbedType + "\"; supported: null or \"text_time\" (SDXL)");
    if (c.additionEmbedType == "text_time") {
        if (isNull(j, "addition_time_embed_dim"))
            cfgBadField("addition_time_embed_dim",
                        "must be given for addition_embed_type \"text_time\"");
        if (isNull(j, "projection_class_embeddings_input_dim"))
            cfgBadField("projection_class_embeddings_input_dim",
                        "must be given for addition_embed_type \"text_time\"");
        c.additionTimeEmbedDim = cfgInt(j, "addition_time_embed_dim", 0, 1, kMaxWidth);
        c.projectionClassEmbeddingsInputDim =
            cfgInt(j, "projection_class_embeddings_input_dim", 0, 1, kMaxWidth);
    }
    c.upcastAttention = cfgBool(j, "upcast_attention", c.upcastAttention);
    c.useLinearProjection = cfgBool(j, "use_linear_projection", c.useLinearProjection);
    c.centerInputSample = cfgBool(j, "center_input_sample", c.centerInputSample);
    c.flipSinToCos = cfgBool(j, "flip_sin_to_cos", c.flipSinToCos);
    c.freqShift = cfgDouble(j, "freq_shift", c.freqShift);
    c.timeEmbeddingDim = cfgInt(j, "time_embedding_dim", 0, 1, kMaxWidth);
    c.downsamplePadding = cfgInt(j, "downsample_padding", c.downsamplePadding, 0, 1);
    c.midBlockScaleFactor = cfgDouble(j, "mid_block_scale_factor", c.midBlockScaleFactor);
    c.normNumGroups = cfgInt(j, "norm_num_groups", c.normNumGroups, 1, kMaxHeads);
    c.normEps = cfgDouble(j, "norm_eps", c.normEps);

    if (!(c.normEps > 0)) cfgBadField("norm_eps", "must be positive");
    if (c.midBlockScaleFactor == 0) cfgBadField("mid_block_scale_factor", "must not be 0");
    if (double(c.blockOutChannels.front() / 2) == c.freqShift)
        cfgBadField("freq_shift",
                    "must differ from block_out_channels[0] / 2 (a division by zero)");
    if (c.additionTimeEmbedDim > 0 && double(c.additionTimeEmbedDim / 2) == c.freqShift)
        cfgBadField("freq_shift",
                    "must differ from addition_time_embed_dim / 2 (a division by zero)");
    for (size_t i = 0; i < n; ++i) {
        const int ch = c.blockOutChannels[i];
        if (ch % c.normNumGroups != 0)
            cfgBadField("block_out_channels[" + std::to_string(i) + "]",
                        "is " + std::to_string(ch) + ", not a multiple of norm_num_groups (" +
                            std::to_string(c.normNumGroups) + ")");
    }
    // Widths within their bounds can still make an absurd matrix: the widest block's GEGLU
    // feed-forward (ch x 8 ch), its cross-attention keys (context x ch), the time embedding.
    const int64_t widest = *std::max_element(c.blockOutChannels.begin(), c.blockOutChannels.end());
    cfgRequireElements("block_out_channels (the largest)", widest,
                       "8 x the same (GEGLU feed-forward)", 8 * widest);
    for (int d : c.crossAttentionDim)
        cfgRequireElements("cross_attention_dim", d, "block_out_channels (the largest)", widest);
    cfgRequireElements("time embedding width", c.timeEmbedDim(), "the same", c.timeEmbedDim());
    if (c.additionEmbedType == "text_time")
        cfgRequireElements("projection_class_embeddings_input_dim",
                           c.projectionClassEmbeddingsInputDim, "time embedding width",
                           c.timeEmbedDim());
    // Every cross-attention block reads the same encoder_hidden_states: one width, and heads
    // that divide the block's channels.
    const int ctx = c.contextDim();
    const char* headsKey =
        isNull(j, "num_attention_heads") ? "attention_head_dim" : "num_attention_heads";
    auto checkAttn = [&](size_t i, const std::string& where) {
        const int ch = c.blockOutChannels[i], heads = c.numAttentionHeads[i];
        if (ch % heads != 0)
            cfgBadField(std::string(headsKey) + "[" + std::to_string(i) + "]",
                        "gives " + std::to_string(heads) + " heads (" + where +
                            "), which do not divide " + std::to_string(ch) + " channels");
        if (c.crossAttentionDim[i] != ctx)
            cfgBadField("cross_attention_dim[" + std::to_string(i) + "]",
                        "is " + std::to_string(c.crossAttentionDim[i]) +
                            ", another cross-attention block "
                            "has " +
                            std::to_string(ctx) +
                            " (they all read the same encoder_hidden_states)");
    };
    for (size_t i = 0; i < n; ++i) {
        if (c.isCrossAttnDown(int(i))) checkAttn(i, "down_blocks." + std::to_string(i));
        if (c.isCrossAttnUp(int(i))) checkAttn(n - 1 - i, "up_blocks." + std::to_string(i));
    }
    if (c.hasMidBlock()) checkAttn(n - 1, "mid_block");
    return c;
}

}  // namespace hs
