#include "numerics/precision_policy.h"

#include <torch/torch.h>

#include <cmath>

namespace hs {

PrecisionPolicy::PrecisionPolicy(PrecisionPlan plan, torch::Device device)
    : PrecisionPolicy(std::move(plan), device,
                      device.is_cuda() ? Execution::Native : cpuBf16Execution()) {}

PrecisionPolicy::PrecisionPolicy(PrecisionPlan plan, torch::Device device, Execution bf16)
    : m_plan(std::move(plan)),
      m_device(device),
      m_bf16(device.is_cuda() ? Execution::Native : bf16) {}

Execution PrecisionPolicy::executionOf(Format f) const {
    if (f == Format::BF16) return m_bf16;
    return hs::executionFor(f, m_device);
}

const PrecisionPolicy::PathInfo& PrecisionPolicy::info(const std::string& path) const {
    auto it = m_info.find(path);
    if (it != m_info.end()) return it->second;
    PathInfo i;
    i.format = m_plan.resolve(path, Format::FP32);
    i.execution = executionOf(i.format);
    i.clampOutput = m_plan.clampsOutputOf(path);
    i.clampResidual = m_plan.clamps(path);
    i.scaleBits = m_plan.scaleBits(path);
    i.fp32Residual = m_plan.keepsResidualFp32(path);
    i.fp8Weights = m_plan.fp8Weights(path);
    if ((i.scaleBits || i.fp32Residual) && i.format != Format::FP32)
        i.execution = Execution::Emulated;
    return m_info.emplace(path, i).first->second;
}

Format PrecisionPolicy::formatFor(const std::string& path) const {
    return info(path).format;
}

Execution PrecisionPolicy::executionFor(const std::string& path) const {
    return info(path).execution;
}

torch::ScalarType PrecisionPolicy::computeTypeOf(Format f) const {
    return executionOf(f) == Execution::Native ? scalarTypeOf(f) : torch::kFloat32;
}

torch::ScalarType PrecisionPolicy::computeTypeFor(const std::string& path) const {
    const PathInfo& i = info(path);
    return i.execution == Execution::Native ? scalarTypeOf(i.format) : torch::kFloat32;
}

torch::Tensor PrecisionPolicy::storeWith(const PathInfo& i, Format f, const torch::Tensor& x,
                                         bool residual, bool output) const {
    if (!x.is_floating_point() || storesFp32(f)) return x;
    if (residual && i.fp32Residual) return x;
    const bool emulated =
        f == i.format ? i.execution == Execution::Emulated : executionOf(f) == Execution::Emulated;
    double limit = limitsOf(f).maxFinite;
    torch::Tensor y = x;
    if (emulated && i.scaleBits) {
        // Exact power-of-two scaling: rounding x * 2^-K to the format and multiplying back is
        // rounding x to the same format with a 2^K-fold range.
        y = roundTo(x * std::ldexp(1.0, -i.scaleBits), f) * std::ldexp(1.0, i.scaleBits);
        limit = std::ldexp(limit, i.scaleBits);
    } else if (emulated) {
        y = roundTo(x, f);
    }
    if (output && (i.clampOutput || (residual && i.clampResidual))) y = y.clamp(-limit, limit);
    return y;
}

Format PrecisionPolicy::storedFormat(const std::string& path, bool residual) const {
    const PathInfo& i = info(path);
    return residual && i.fp32Residual ? Format::FP32 : i.format;
}

torch::Tensor PrecisionPolicy::store(const std::string& path, const torch::Tensor& x,
                                     bool residual) const {
    if (m_plan.empty()) return x;
    const PathInfo& i = info(path);
    return storeWith(i, i.format, x, residual, true);
}

torch::Tensor PrecisionPolicy::storeAs(const std::string& path, Format format,
                                       const torch::Tensor& x, bool residual) const {
    if (m_plan.empty()) return x;
    return storeWith(info(path), format, x, residual, true);
}

torch::Tensor PrecisionPolicy::enter(const std::string& path, const torch::Tensor& x,
                                     const torch::Tensor& like) const {
    torch::Tensor y = x.scalar_type() == like.scalar_type() ? x : x.to(like.scalar_type());
    if (m_plan.empty()) return y;
    const PathInfo& i = info(path);
    if (i.fp32Residual) return y;  // the stream entering the block stays fp32
    return storeWith(i, i.format, y, false, false);
}

torch::Tensor PrecisionPolicy::fp16ResidualClip(const std::string& path,
                                                const torch::Tensor& x) const {
    const PathInfo& i = info(path);
    if (i.format != Format::FP16 || i.fp32Residual) return x;
    // Under scale:K the stream is held at 2^-K of its size: the clip acts there.
    const double limit = std::ldexp(kFp16Max, i.scaleBits);
    return x.clamp(-limit, limit);
}

}  // namespace hs
