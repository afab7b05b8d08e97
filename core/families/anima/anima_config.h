#pragma once
// Configuration of diffusers' AnimaTextConditioner (config.json of Anima's "text_conditioner"
// folder: the LLM adapter stored as net.llm_adapter.* inside the Anima DiT file).
#include <nlohmann/json_fwd.hpp>

#include "models/common/config.h"

namespace hs {

struct AnimaAdapterConfig {
    int sourceDim = 1024;  // Qwen3 hidden size
    int targetDim = 1024;  // output width: the Cosmos transformer's text_embed_dim
    int modelDim = 1024;
    int numLayers = 6;
    int numAttentionHeads = 16;
    double mlpRatio = 4.0;
    int targetVocabSize = 32128;  // T5's vocabulary
    bool useSelfAttention = true;
    bool useLayerNorm = false;  // LayerNorm (eps 1e-5, affine) instead of RMSNorm (eps 1e-6)
    int minSequenceLength = 512;

    int headDim() const { return modelDim / numAttentionHeads; }
    int mlpDim() const { return int(double(modelDim) * mlpRatio); }  // int(model_dim * mlp_ratio)
    bool hasInProj() const { return modelDim != targetDim; }

    // Reads diffusers' field names with diffusers' defaults. Throws ConfigError naming the field.
    static AnimaAdapterConfig fromJson(const nlohmann::json& j);
};

}  // namespace hs
