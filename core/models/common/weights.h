#pragma once
// Loading checkpoint tensors into LibTorch modules whose named_parameters() equal the
// checkpoint keys, each parameter converted straight from its stored dtype into the format the
// precision policy gives its module (emulated formats: fp32 storage of values rounded to them).
#include <torch/torch.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "models/common/layers.h"
#include "numerics/precision_policy.h"

namespace hs {

class WeightError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Tensors by checkpoint key; values may be views into mapped files.
using WeightMap = std::map<std::string, torch::Tensor>;
// Every tensor of `set`: views, except fp8 ones, decoded into float32 copies (io/float8.h), and,
// in a ComfyUI scaled-fp8 file, weights multiplied by their scale_weight, without the marker and
// the scale keys (io/scaled_fp8.h). Throws FileError for a scale that is not one finite value
// or has no weight.
WeightMap weightMapOf(const TensorSet& set);

// "[2, 3]"
std::string shapeText(c10::IntArrayRef shape);

// Checks that `weights` holds a tensor of the right shape for every parameter and persistent
// buffer of `module` and nothing else (keys matching `ignoredKeys`, globs allowed, excepted).
// Reads names and shapes only, so `module` may live on the meta device. Throws WeightError
// naming the key.
void checkWeights(torch::nn::Module& module, const WeightMap& weights,
                  const std::vector<std::string>& ignoredKeys = {});

// checkWeights(), then copies `weights` into the parameters and buffers of `module`.
// `component` is the module's path in the pipeline ("vae", "transformer", ...), so parameter
// "decoder.conv_in.weight" takes the format of "vae.decoder.conv_in".
void loadWeights(torch::nn::Module& module, const WeightMap& weights, const std::string& component,
                 const PrecisionPolicy& policy, const std::vector<std::string>& ignoredKeys = {});

// Sets each matmul or convolution layer (nn::Tf32Layer) inside `module` to tf32, native or
// emulated as `policy` runs it, where the plan gives its path tf32, and to plain fp32 elsewhere.
// loadWeights calls it (a plan that changes a module's format reloads it: Pipeline::setPlan).
void setTf32Modes(torch::nn::Module& module, const std::string& component,
                  const PrecisionPolicy& policy);

// `loadX(config, weights, policy[, component])` for a model built as Model(Config::fromJson(
// config), component): builds it, loads `weights` with loadWeights, in eval mode; `Frozen` also
// turns autograd off for its parameters (models only ever run for inference). Throws
// ConfigError for a bad or unsupported config and WeightError naming the key for a missing,
// unexpected or mis-shaped tensor.
template <class Model, class Config, const char* DefaultComponent, bool Frozen = false>
struct ModuleLoader {
    Model operator()(const nlohmann::json& config, const WeightMap& weights,
                     const PrecisionPolicy& policy,
                     const std::string& component = DefaultComponent) const {
        Model model(Config::fromJson(config), component);
        loadWeights(*model, weights, component, policy);
        if (Frozen)
            for (auto& p : model->parameters()) p.set_requires_grad(false);
        model->eval();
        return model;
    }
};
inline constexpr char kTransformerSlot[] = "transformer";
inline constexpr char kVaeSlot[] = "vae";

// One stored tensor as loadWeights puts it into a parameter or buffer of dtype `dstType`:
// floating tensors (`floating`: the destination is floating too) in the format `policy` gives
// the module of `key` under `component`, emulated formats as fp32 holding values rounded to
// them; others cast to `dstType`. Always a fresh contiguous tensor on the policy's device, never
// a view of `stored` (which may be a mapped file whose pages are dropped afterwards).
torch::Tensor convertWeight(const torch::Tensor& stored, torch::ScalarType dstType, bool floating,
                            const std::string& component, const std::string& key,
                            const PrecisionPolicy& policy);

// Checkpoint-style state of a module: every parameter and persistent buffer by key.
WeightMap stateOf(torch::nn::Module& module);

}  // namespace hs
