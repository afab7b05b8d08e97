#pragma once
// transformers CLIPTextConfig (configuration_clip.py), read from a text encoder's config.json
// (top-level fields) or from a full CLIPConfig (fields under "text_config").
#include <nlohmann/json.hpp>
#include <string>

#include "models/common/config.h"

namespace hs {

enum class ClipActivation { QuickGelu, Gelu };  // gelu = exact erf GELU

struct ClipTextConfig {
    int vocabSize = 49408;
    int hiddenSize = 512;
    int intermediateSize = 2048;
    int numAttentionHeads = 8;
    int numHiddenLayers = 12;
    int maxPositionEmbeddings = 77;
    double layerNormEps = 1e-5;
    ClipActivation hiddenAct = ClipActivation::QuickGelu;
    int projectionDim = 512;
    int bosTokenId = 49406;
    int eosTokenId = 49407;  // 2 in legacy configs: then pooling takes argmax(input_ids)
    int padTokenId = 1;
    // CLIPTextModelWithProjection (text_projection, no bias) rather than CLIPTextModel.
    bool withProjection = false;
    // Read from a full CLIPConfig: the checkpoint also holds the vision tower.
    bool nestedInFullClip = false;

    int headDim() const { return hiddenSize / numAttentionHeads; }
};

// Throws ConfigError naming the field. withProjection comes from "architectures"
// (CLIPTextModelWithProjection or CLIPModel); without that list, `hasProjectionWeight` decides.
ClipTextConfig clipTextConfigFromJson(const nlohmann::json& config,
                                      bool hasProjectionWeight = false);

}  // namespace hs
