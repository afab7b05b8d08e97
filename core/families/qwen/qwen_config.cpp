#include "families/qwen/qwen_config.h"

namespace hs {

bool qwenClassVariant(const std::string& className, QwenVariant* variant) {
    QwenVariant v;
    if (className == "Qwen3Model" || className == "Qwen3ForCausalLM")
        v = QwenVariant::Qwen3;
    else if (className == "Qwen2Model" || className == "Qwen2ForCausalLM" ||
             className == "Qwen2_5_VLForConditionalGeneration")
        v = QwenVariant::Qwen2;
    else
        return false;
    if (variant) *variant = v;
    return true;
}

namespace {

// rope_theta at the top level (transformers 4.x) or in rope_parameters (5.x); the scaling in
// rope_scaling or rope_parameters: "default", or Qwen2.5-VL's "mrope" (3 sections of the head's
// frequencies indexed by temporal, height and width positions; for text all three positions are
// the token index, which makes it the plain rotary embedding).
void readRope(const nlohmann::json& j, QwenConfig& c) {
    c.ropeTheta = cfgDouble(j, "rope_theta", c.ropeTheta);
    for (const char* key : {"rope_scaling", "rope_parameters"}) {
        if (!j.contains(key) || j[key].is_null()) continue;
        const auto& r = j[key];
        cfgRequire(r.is_object(), std::string("'") + key + "' must be an object");
        if (r.contains("rope_theta")) c.ropeTheta = cfgDouble(r, "rope_theta", c.ropeTheta);
        std::string type = cfgString(r, "rope_type", cfgString(r, "type", "default"));
        cfgRequire(
            type == "default" || type == "mrope",
            std::string("'") + key + "' type \"" + type + "\" is not supported (default, mrope)");
    }
    cfgRequire(c.ropeTheta > 0, "'rope_theta' must be positive");
}

}  // namespace

QwenConfig qwenConfigFromJson(const nlohmann::json& top) {
    if (!top.is_object()) throw ConfigError("config.json: expected an object");
    QwenConfig c;
    const auto archs = cfgStringList(top, "architectures", {});
    std::string cls = archs.empty() ? "" : archs.front();
    if (cls.empty()) {  // no architectures: the model_type decides
        const std::string type = cfgString(top, "model_type", "");
        cls = type == "qwen2" ? "Qwen2Model" : type == "qwen3" ? "Qwen3Model" : "";
    }
    c.maskedPositions = cls == "Qwen2_5_VLForConditionalGeneration";
    if (!qwenClassVariant(cls, &c.variant))
        throw ConfigError("config.json: 'architectures' names \"" + cls +
                          "\", not a Qwen2 or Qwen3 text model");
    // Qwen2_5_VLConfig keeps the language model's fields in text_config (newer files) or at the
    // top level (the original releases).
    const bool nested = top.contains("text_config") && top["text_config"].is_object();
    const nlohmann::json& j = nested ? top["text_config"] : top;

    cfgInts(j, {{"vocab_size", c.vocabSize, 1, kMaxVocabulary},
                {"hidden_size", c.hiddenSize, 1, kMaxWidth},
                {"intermediate_size", c.intermediateSize, 1, kMaxWidth},
                {"num_hidden_layers", c.numLayers, 1, kMaxLayers},
                {"num_attention_heads", c.numHeads, 1, kMaxHeads}});
    c.numKeyValueHeads = cfgInt(j, "num_key_value_heads", c.numHeads, 1, kMaxHeads);
    c.maxPositions = cfgInt(j, "max_position_embeddings", c.maxPositions, 1, kMaxPositions);
    cfgRequire(c.numHeads % c.numKeyValueHeads == 0,
               "'num_attention_heads' (" + std::to_string(c.numHeads) +
                   ") must be a multiple of 'num_key_value_heads' (" +
                   std::to_string(c.numKeyValueHeads) + ")");
    // Qwen3: head_dim defaults to 128; Qwen2: hidden_size / num_attention_heads unless given.
    if (c.variant == QwenVariant::Qwen2) {
        cfgRequire(c.hiddenSize % c.numHeads == 0,
                   "'hidden_size' must be a multiple of 'num_attention_heads'");
        c.headDim = c.hiddenSize / c.numHeads;
    }
    c.headDim = cfgInt(j, "head_dim", c.headDim, 2, kMaxWidth);
    cfgRequire(c.headDim % 2 == 0, "'head_dim' must be even (rotary embedding)");
    cfgRequire(int64_t(c.numHeads) * c.headDim <= kMaxWidth,
               "'num_attention_heads' x 'head_dim' is more than " + std::to_string(kMaxWidth));
    cfgRequireElements("vocab_size", c.vocabSize, "hidden_size", c.hiddenSize);
    cfgRequireElements("hidden_size", c.hiddenSize, "intermediate_size", c.intermediateSize);
    cfgRequireElements("hidden_size", c.hiddenSize, "num_attention_heads x head_dim",
                       int64_t(c.numHeads) * c.headDim);
    c.rmsNormEps = cfgDouble(j, "rms_norm_eps", c.rmsNormEps);
    cfgRequire(c.rmsNormEps > 0, "'rms_norm_eps' must be positive");
    readRope(j, c);

    const std::string act = cfgString(j, "hidden_act", "silu");
    cfgRequire(act == "silu" || act == "swish",
               "'hidden_act' \"" + act + "\" is not supported (silu)");
    cfgRequire(!cfgBool(j, "use_sliding_window", false),
               "'use_sliding_window' true is not supported (full attention only)");
    for (const auto& t : cfgStringList(j, "layer_types", {}))
        cfgRequire(t == "full_attention",
                   "'layer_types' holds \"" + t + "\": only full_attention is supported");
    if (c.variant == QwenVariant::Qwen3) {
        c.qkNorm = true;
        c.qkvBias = c.oBias = cfgBool(j, "attention_bias", false);
    } else {
        c.qkvBias = true;  // Qwen2Attention: q/k/v with bias, o_proj without
    }
    return c;
}

}  // namespace hs
