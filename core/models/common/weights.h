#pragma once
// Loading checkpoint tensors into LibTorch modules whose named_parameters() equal the
// checkpoint keys, each parameter converted straight from its stored dtype into the format the
// precision plan gives its module (fp16 emulated on CPU: fp32 storage of fp16-rounded values).
#include <map>
#include <string>

#include <torch/torch.h>

#include "io/safetensors.h"
#include "models/common/layers.h"
#include "numerics/probe.h"

namespace hs {

class WeightError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Tensors by checkpoint key; values may be views into mapped files.
using WeightMap = std::map<std::string, torch::Tensor>;
WeightMap weightMapOf(const TensorSet& set);

// Copies `weights` into the parameters and buffers of `module`. `component` is the module's
// path in the pipeline ("vae", "transformer", ...), so parameter "decoder.conv_in.weight"
// takes the format of "vae.decoder.conv_in". Throws WeightError naming the key for a missing
// tensor, an unexpected tensor (unless listed in `ignoredKeys`) or a shape mismatch.
void loadWeights(torch::nn::Module& module, const WeightMap& weights, const std::string& component,
                 const ProbeContext& probes, const std::vector<std::string>& ignoredKeys = {});

// Checkpoint-style state of a module: every parameter and persistent buffer by key.
WeightMap stateOf(torch::nn::Module& module);

}  // namespace hs
