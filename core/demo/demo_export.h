#pragma once
// Writes the demo pipeline folder (model_index.json, text_encoder/, tokenizer/, transformer/,
// vae/, scheduler/, README.md) from trained fp32 weights: applies the residual scaling, stores
// the weights in bf16 as real models are, and replaces an existing folder only once the new one
// is complete.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "demo/demo_tokenizer.h"
#include "models/common/weights.h"

namespace hs::demo {

struct DemoExport {
    WeightMap textEncoder, transformer, vae;  // fp32, as trained
    BpeVocabulary vocab;
    double scalingFactor = 1.0, shiftFactor = 0.0;
    std::vector<double> latentRgbFactors;  // [4][3] then bias [3]: preview RGB from latents
    double residualScaleTransformer = 0, residualScaleVae = 0;  // <= 0: calibrated (see
                                                                // residual_calibration.h)
    std::string trainingSummary;                                // Markdown lines for the README
};

void exportDemoPipeline(const std::string& dir, const DemoExport& e);

}  // namespace hs::demo
