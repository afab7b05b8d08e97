#pragma once
// Per-tensor weight statistics for the fp16 check from weights (diagnosis/weight_risk.h): max
// |w|, RMS and non-finite count of every floating tensor, read tensor by tensor from the mapped
// safetensors files in the stored dtype (converted to fp32 a chunk at a time), so a model is
// never loaded whole.
#include <torch/types.h>

#include <string>
#include <vector>

#include "diagnosis/weight_risk.h"
#include "io/safetensors.h"

namespace hs {

// Statistics of one floating CPU tensor (any floating dtype).
WeightStats tensorWeightStats(const torch::Tensor& t);

// Every floating tensor of `set`, tagged with `component`: fp8 ones decoded (times their
// scale_weight in a ComfyUI scaled-fp8 file, whose marker and scales are left out; dtype "e4m3",
// "scaled e4m3" ...). Non-floating ones are skipped and named in `skipped` when given.
std::vector<WeightStats> weightStatsOf(const TensorSet& set, const std::string& component,
                                       std::vector<std::string>* skipped = nullptr);

// A pipeline folder (its model components, named as in model_index.json), a component folder
// (named after the folder) or a .safetensors file (named after the file, dots replaced by _).
// `variant` selects weights variants as openComponent does. A component that cannot be read is
// named in the report's notes. Throws FileError for a path that is none of these.
WeightRiskReport predictFromWeights(const std::string& path, const std::string& variant = "");

}  // namespace hs
