#pragma once
// What a precision plan means on a device: the format and execution of every module path, the
// dtype its weights and activations use, and the three places where a format acts on a tensor:
//   - store: an op's output at a probe point, rounded to the format where it is emulated (a GPU
//     stores it in that format);
//   - enter: a tensor entering a module, cast to the module's weight dtype and, where emulated,
//     rounded (the module would receive it in that format);
//   - fp16 residual clip: diffusers' `if x.dtype == torch.float16: x = x.clip(-65504, 65504)`
//     on a residual stream whose block runs in fp16 (native or emulated).
// The CPU's bf16 mode (cpu_bf16.h) is read once, when the policy is made: a pipeline loaded in
// one mode keeps it for its lifetime. Separate from the statistics (probe.h): loaders take a
// policy alone.
#include <torch/types.h>

#include <string>
#include <unordered_map>

#include "numerics/format.h"
#include "numerics/precision_plan.h"

namespace hs {

class PrecisionPolicy {
public:
    PrecisionPolicy(PrecisionPlan plan, torch::Device device);
    // With bf16's execution given (a pipeline keeps the one it was loaded with).
    PrecisionPolicy(PrecisionPlan plan, torch::Device device, Execution bf16);

    const PrecisionPlan& plan() const { return m_plan; }
    const torch::Device& device() const { return m_device; }
    // How bf16 runs on this policy's device (CUDA: native; CPU: the mode when it was made).
    Execution bf16Execution() const { return m_bf16; }

    // The plan's format for `path` (fp32 when no rule matches) and how it runs here.
    Format formatFor(const std::string& path) const;
    Execution executionFor(const std::string& path) const;
    Execution executionOf(Format f) const;
    // dtype of the weights and activations of `path`: the format when native, fp32 emulated.
    torch::ScalarType computeTypeFor(const std::string& path) const;
    torch::ScalarType computeTypeOf(Format f) const;

    // An op output stored at `path`: rounded to the format where it is emulated.
    torch::Tensor store(const std::string& path, const torch::Tensor& x) const;
    // A tensor entering module `path`, whose weights are `like`: cast to like's dtype and, where
    // `path`'s format is emulated, rounded to it.
    torch::Tensor enter(const std::string& path, const torch::Tensor& x,
                        const torch::Tensor& like) const;
    // x clamped to +-65504 when `path` runs in fp16 (NaN stays NaN, Inf becomes +-65504).
    torch::Tensor fp16ResidualClip(const std::string& path, const torch::Tensor& x) const;

    struct PathInfo {
        Format format;
        Execution execution;
    };
    // Cached per path: probe points ask for the same few hundred names at every step.
    const PathInfo& info(const std::string& path) const;

private:
    PrecisionPlan m_plan;
    torch::Device m_device;
    Execution m_bf16;
    mutable std::unordered_map<std::string, PathInfo> m_info;
};

}  // namespace hs
