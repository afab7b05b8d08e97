#pragma once
// transformers T5Config (configuration_t5.py), the fields an encoder reads. T5 v1.1 (FLUX's and
// SD3's text_encoder_2/3) is "gated-gelu": wi_0 through gelu_new times wi_1, then wo; T5 v1.0
// is "relu" with a single wi.
#include <nlohmann/json.hpp>

#include "models/common/config.h"

namespace hs {

enum class T5Activation { Relu, Gelu, GeluTanh, Silu };

struct T5Config {
    int vocabSize = 32128;
    int dModel = 512;
    int dKv = 64;
    int dFf = 2048;
    int numLayers = 6;
    int numHeads = 8;
    int relativeAttentionNumBuckets = 32;
    int relativeAttentionMaxDistance = 128;
    double layerNormEpsilon = 1e-6;
    bool gated = false;
    T5Activation act = T5Activation::Relu;
    // A full T5ForConditionalGeneration checkpoint: its decoder and lm_head are not loaded.
    bool withDecoder = false;

    int innerDim() const { return numHeads * dKv; }
};

// Throws ConfigError naming the field. As transformers does, the activation comes from
// "feed_forward_proj" ("relu", "gated-gelu", "gated-silu", ...), never from "dense_act_fn".
T5Config t5ConfigFromJson(const nlohmann::json& config);

}  // namespace hs
