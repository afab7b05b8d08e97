#pragma once
// transformers Qwen3Config / Qwen2Config (configuration_qwen3.py, configuration_qwen2.py) and the
// text part of Qwen2_5_VLConfig, the fields a text encoder reads. Qwen3 (Anima's text encoder,
// Qwen3-0.6B) has no q/k/v bias, an explicit head_dim and an RMSNorm over each head of q and k;
// Qwen2 (the language model of Qwen2.5-VL, Qwen-Image's text encoder) has q/k/v biases and no
// q/k norm. Both: grouped-query attention, rotary positions, SwiGLU feed-forward, RMSNorm.
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/config.h"

namespace hs {

enum class QwenVariant { Qwen2, Qwen3 };

struct QwenConfig {
    QwenVariant variant = QwenVariant::Qwen3;
    int vocabSize = 151936;
    int hiddenSize = 1024;
    int intermediateSize = 3072;
    int numLayers = 28;
    int numHeads = 16;
    int numKeyValueHeads = 8;
    int headDim = 128;
    double rmsNormEps = 1e-6;
    double ropeTheta = 1e6;
    bool qkvBias = false;      // Qwen2: always; Qwen3: attention_bias
    bool oBias = false;        // Qwen3 with attention_bias only
    bool qkNorm = false;       // Qwen3
    int maxPositions = 32768;  // max_position_embeddings: the longest input run() accepts
    // Qwen2_5_VLForConditionalGeneration: get_rope_index gives text with an attention mask the
    // positions cumsum(mask) - 1, and 1 at padding (the same as 0 .. L-1 before right padding).
    bool maskedPositions = false;

    int qWidth() const { return numHeads * headDim; }
    int kvWidth() const { return numKeyValueHeads * headDim; }
};

// The class names this family loads and the variant each one is.
bool qwenClassVariant(const std::string& className, QwenVariant* variant);

// Reads `config` for the class in its "architectures" (Qwen3Model, Qwen3ForCausalLM, Qwen2Model,
// Qwen2ForCausalLM, Qwen2_5_VLForConditionalGeneration: its "text_config" when present, else the
// top level). Throws ConfigError naming the field: sizes out of bounds, an activation other than
// silu, sliding-window attention, a RoPE scaling other than the default (or Qwen2.5-VL's mrope,
// which text-only positions reduce to the default).
QwenConfig qwenConfigFromJson(const nlohmann::json& config);

}  // namespace hs
