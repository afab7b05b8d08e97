#pragma once
// What a precision plan means on a device: the format and execution of every module path, the
// dtype its weights and activations use, and the three places where a format acts on a tensor:
//   - store: an op's output at a probe point, rounded to the format where it is emulated (a GPU
//     stores it in that format);
//   - enter: a tensor entering a module, cast to the module's weight dtype and, where emulated,
//     rounded (the module would receive it in that format);
//   - fp16 residual clip: diffusers' `if x.dtype == torch.float16: x = x.clip(-65504, 65504)`
//     on a residual stream whose block runs in fp16 (native or emulated).
// The plan's remedies (precision_plan.h) act in store and enter:
//   - clamp: a stored value at the clamped module's own output, or on a residual stream inside
//     it, is clipped to the format's finite range after rounding (Inf becomes the largest
//     finite value, NaN stays NaN);
//   - scale:K: every value stored inside the module is rounded as x * 2^-K and read back times
//     2^K: the range grows 2^K-fold, the relative precision is the format's, subnormals lose K
//     bits; in fp32 it is exact (x * 2^-K * 2^K == x);
//   - fp32-residual: residual-stream values inside the module are not rounded, nor are tensors
//     entering it, so the stream stays fp32; its other values are stored in the format.
// A module under scale or fp32-residual runs emulated (fp32 compute) even where its format has
// native kernels, so that every stored value can be treated exactly; its weights are fp32 then.
// The CPU's bf16 mode (cpu_bf16.h) is read once, when the policy is made: a pipeline loaded in
// one mode keeps it for its lifetime. Separate from the statistics (probe.h): loaders take a
// policy alone.
#include <torch/types.h>

#include <optional>
#include <string>
#include <unordered_map>

#include "numerics/format.h"
#include "records/precision_plan.h"

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

    // An op output stored at `path`: rounded to the format where it is emulated, with the
    // path's remedies. `residual`: x is the residual stream of the block it belongs to.
    torch::Tensor store(const std::string& path, const torch::Tensor& x,
                        bool residual = false) const;
    // As store(), in a format other than the path's own (a sum that type promotion widened).
    torch::Tensor storeAs(const std::string& path, Format format, const torch::Tensor& x,
                          bool residual) const;
    // The format a value stored at `path` is held in: fp32 on an fp32-residual stream.
    Format storedFormat(const std::string& path, bool residual) const;
    // A tensor entering module `path`, whose weights are `like`: cast to like's dtype and, where
    // `path`'s format is emulated, rounded to it.
    torch::Tensor enter(const std::string& path, const torch::Tensor& x,
                        const torch::Tensor& like) const;
    // x clamped to +-65504 when `path` runs in fp16 and its residual stream is not kept in fp32
    // (NaN stays NaN, Inf becomes +-65504); to +-65504 * 2^K under scale:K.
    torch::Tensor fp16ResidualClip(const std::string& path, const torch::Tensor& x) const;

    struct PathInfo {
        Format format;
        Execution execution;
        bool clampOutput = false;    // a clamp rule names this path
        bool clampResidual = false;  // a clamp rule matches it or an ancestor
        int scaleBits = 0;           // K of scale:K, 0: none
        bool fp32Residual = false;
        std::optional<Remedy> fp8Weights;  // Remedy::Fp8E4M3 / Fp8E5M2: weights stored so
    };
    // Cached per path: probe points ask for the same few hundred names at every step.
    const PathInfo& info(const std::string& path) const;

private:
    torch::Tensor storeWith(const PathInfo& i, Format format, const torch::Tensor& x, bool residual,
                            bool output) const;

    PrecisionPlan m_plan;
    torch::Device m_device;
    Execution m_bf16;
    mutable std::unordered_map<std::string, PathInfo> m_info;
};

}  // namespace hs
