#include "families/clip/clip_config.h"

#include "models/common/config.h"

namespace hs {

namespace {

void requirePositive(int v, const char* key) {
    if (v <= 0)
        throw ConfigError(std::string("config.json: '") + key + "' must be positive, got " +
                          std::to_string(v));
}

}  // namespace

ClipTextConfig clipTextConfigFromJson(const nlohmann::json& config, bool hasProjectionWeight) {
    if (!config.is_object()) throw ConfigError("config.json: expected an object");
    ClipTextConfig c;
    const bool nested = config.contains("text_config") && config["text_config"].is_object();
    const nlohmann::json& t = nested ? config["text_config"] : config;
    c.nestedInFullClip = nested;
    c.vocabSize = cfgInt(t, "vocab_size", c.vocabSize, 1, kMaxVocabulary);
    c.hiddenSize = cfgInt(t, "hidden_size", c.hiddenSize, 1, kMaxWidth);
    c.intermediateSize = cfgInt(t, "intermediate_size", c.intermediateSize, 1, kMaxWidth);
    c.numAttentionHeads = cfgInt(t, "num_attention_heads", c.numAttentionHeads, 1, kMaxHeads);
    c.numHiddenLayers = cfgInt(t, "num_hidden_layers", c.numHiddenLayers, 1, kMaxLayers);
    c.maxPositionEmbeddings =
        cfgInt(t, "max_position_embeddings", c.maxPositionEmbeddings, 1, kMaxPositions);
    c.layerNormEps = cfgDouble(t, "layer_norm_eps", c.layerNormEps);
    // CLIPConfig keeps projection_dim at the top level (and copies it into text_config).
    c.projectionDim = cfgInt(t, "projection_dim", c.projectionDim, 1, kMaxWidth);
    if (nested) c.projectionDim = cfgInt(config, "projection_dim", c.projectionDim, 1, kMaxWidth);
    c.bosTokenId = cfgInt(t, "bos_token_id", c.bosTokenId, -1, kMaxVocabulary);
    c.eosTokenId = cfgInt(t, "eos_token_id", c.eosTokenId, -1, kMaxVocabulary);
    c.padTokenId = cfgInt(t, "pad_token_id", c.padTokenId, -1, kMaxVocabulary);
    const std::string act = cfgString(t, "hidden_act", "quick_gelu");
    if (act == "quick_gelu")
        c.hiddenAct = ClipActivation::QuickGelu;
    else if (act == "gelu")
        c.hiddenAct = ClipActivation::Gelu;
    else
        throw ConfigError("config.json: 'hidden_act' must be \"quick_gelu\" or \"gelu\", got \"" +
                          act + "\"");
    requirePositive(c.vocabSize, "vocab_size");
    requirePositive(c.hiddenSize, "hidden_size");
    requirePositive(c.intermediateSize, "intermediate_size");
    requirePositive(c.numAttentionHeads, "num_attention_heads");
    requirePositive(c.numHiddenLayers, "num_hidden_layers");
    requirePositive(c.maxPositionEmbeddings, "max_position_embeddings");
    requirePositive(c.projectionDim, "projection_dim");
    if (c.hiddenSize % c.numAttentionHeads != 0)
        throw ConfigError("config.json: 'hidden_size' (" + std::to_string(c.hiddenSize) +
                          ") must be divisible by 'num_attention_heads' (" +
                          std::to_string(c.numAttentionHeads) + ")");
    cfgRequireElements("vocab_size", c.vocabSize, "hidden_size", c.hiddenSize);
    cfgRequireElements("max_position_embeddings", c.maxPositionEmbeddings, "hidden_size",
                       c.hiddenSize);
    cfgRequireElements("hidden_size", c.hiddenSize, "intermediate_size", c.intermediateSize);
    cfgRequireElements("hidden_size", c.hiddenSize, "projection_dim", c.projectionDim);
    if (!(c.layerNormEps > 0)) throw ConfigError("config.json: 'layer_norm_eps' must be positive");

    const auto archs = cfgStringList(config, "architectures", {});
    if (nested) {
        c.withProjection = true;  // CLIPModel: text_projection.weight is in the checkpoint
    } else if (!archs.empty()) {
        c.withProjection = false;
        for (const auto& a : archs)
            c.withProjection |= a == "CLIPTextModelWithProjection" || a == "CLIPModel";
    } else {
        c.withProjection = hasProjectionWeight;
    }
    return c;
}

}  // namespace hs
