#include "families/anima/anima_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace hs {

AnimaAdapterConfig AnimaAdapterConfig::fromJson(const nlohmann::json& j) {
    AnimaAdapterConfig c;
    cfgRequire(j.is_object(), "expected a JSON object");
    cfgInts(j, {{"source_dim", c.sourceDim, 1, kMaxWidth},
                {"target_dim", c.targetDim, 1, kMaxWidth},
                {"model_dim", c.modelDim, 1, kMaxWidth},
                {"num_layers", c.numLayers, 0, kMaxLayers},
                {"num_attention_heads", c.numAttentionHeads, 1, kMaxHeads}});
    c.mlpRatio = cfgDouble(j, "mlp_ratio", c.mlpRatio);
    c.targetVocabSize = cfgInt(j, "target_vocab_size", c.targetVocabSize, 1, kMaxVocabulary);
    c.useSelfAttention = cfgBool(j, "use_self_attention", c.useSelfAttention);
    c.useLayerNorm = cfgBool(j, "use_layer_norm", c.useLayerNorm);
    c.minSequenceLength = cfgInt(j, "min_sequence_length", c.minSequenceLength, 0, kMaxPositions);

    // AnimaRotaryEmbedding rotates halves of each head: model_dim / heads must be even.
    cfgRequire(c.modelDim % c.numAttentionHeads == 0 && c.headDim() % 2 == 0,
               "'model_dim' (" + std::to_string(c.modelDim) + ") must be 'num_attention_heads' (" +
                   std::to_string(c.numAttentionHeads) + ") times an even head width");
    cfgRequire(std::isfinite(c.mlpRatio) && c.mlpRatio > 0 &&
                   double(c.modelDim) * c.mlpRatio <= double(kMaxWidth) && c.mlpDim() >= 1,
               "'mlp_ratio' must be positive with an MLP width of 1.." + std::to_string(kMaxWidth));
    cfgRequireElements("target_vocab_size", c.targetVocabSize, "target_dim", c.targetDim);
    cfgRequireElements("model_dim", c.modelDim, "mlp width", c.mlpDim());
    cfgRequireElements("source_dim", c.sourceDim, "model_dim", c.modelDim);
    return c;
}

}  // namespace hs
