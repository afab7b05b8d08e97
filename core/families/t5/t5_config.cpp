#include "families/t5/t5_config.h"

namespace hs {

T5Config t5ConfigFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw ConfigError("config.json: expected an object");
    T5Config c;
    cfgInts(j, {{"vocab_size", c.vocabSize, 1, kMaxVocabulary},
                {"d_model", c.dModel, 1, kMaxWidth},
                {"d_kv", c.dKv, 1, kMaxWidth},
                {"d_ff", c.dFf, 1, kMaxWidth},
                {"num_layers", c.numLayers, 1, kMaxLayers},
                {"num_heads", c.numHeads, 1, kMaxHeads}});
    c.relativeAttentionNumBuckets =
        cfgInt(j, "relative_attention_num_buckets", c.relativeAttentionNumBuckets, 2, kMaxWidth);
    c.relativeAttentionMaxDistance = cfgInt(j, "relative_attention_max_distance",
                                            c.relativeAttentionMaxDistance, 1, kMaxPositions);
    c.layerNormEpsilon = cfgDouble(j, "layer_norm_epsilon", c.layerNormEpsilon);
    cfgRequire(c.layerNormEpsilon > 0, "'layer_norm_epsilon' must be positive");
    cfgRequire(int64_t(c.numHeads) * c.dKv <= kMaxWidth,
               "'num_heads' x 'd_kv' is more than " + std::to_string(kMaxWidth));
    cfgRequireElements("vocab_size", c.vocabSize, "d_model", c.dModel);
    cfgRequireElements("d_model", c.dModel, "d_ff", c.dFf);
    cfgRequireElements("d_model", c.dModel, "num_heads x d_kv", int64_t(c.numHeads) * c.dKv);

    // configuration_t5.py: "gated-gelu" -> gated, gelu_new; "relu" -> plain relu; "gated-X".
    const std::string proj = cfgString(j, "feed_forward_proj", "relu");
    const auto dash = proj.find('-');
    const std::string gate = dash == std::string::npos ? "" : proj.substr(0, dash);
    const std::string act = dash == std::string::npos ? proj : proj.substr(dash + 1);
    cfgRequire(dash == std::string::npos ||
                   (gate == "gated" && proj.find('-', dash + 1) == std::string::npos),
               "'feed_forward_proj' must be ACT or gated-ACT, got \"" + proj + "\"");
    c.gated = gate == "gated";
    if (act == "relu")
        c.act = T5Activation::Relu;
    else if (act == "gelu" && c.gated)
        c.act = T5Activation::GeluTanh;  // transformers maps "gated-gelu" to gelu_new
    else if (act == "gelu")
        c.act = T5Activation::Gelu;
    else if (act == "gelu_new" || act == "gelu_pytorch_tanh")
        c.act = T5Activation::GeluTanh;
    else if (act == "silu" || act == "swish")
        c.act = T5Activation::Silu;
    else
        throw ConfigError("config.json: 'feed_forward_proj' activation \"" + act +
                          "\" is not supported (relu, gelu, gelu_new, silu)");
    for (const auto& a : cfgStringList(j, "architectures", {}))
        c.withDecoder |= a == "T5ForConditionalGeneration" || a == "T5Model";
    return c;
}

}  // namespace hs
