#include "numerics/precision_policy.h"

#include <torch/torch.h>

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
    const Format f = m_plan.resolve(path, Format::FP32);
    return m_info.emplace(path, PathInfo{f, executionOf(f)}).first->second;
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
    return computeTypeOf(formatFor(path));
}

torch::Tensor PrecisionPolicy::store(const std::string& path, const torch::Tensor& x) const {
    if (m_plan.empty() || !x.is_floating_point()) return x;
    const PathInfo& i = info(path);
    return i.execution == Execution::Emulated ? roundTo(x, i.format) : x;
}

torch::Tensor PrecisionPolicy::enter(const std::string& path, const torch::Tensor& x,
                                     const torch::Tensor& like) const {
    torch::Tensor y = x.scalar_type() == like.scalar_type() ? x : x.to(like.scalar_type());
    return store(path, y);
}

torch::Tensor PrecisionPolicy::fp16ResidualClip(const std::string& path,
                                                const torch::Tensor& x) const {
    if (formatFor(path) != Format::FP16) return x;
    return x.clamp(-kFp16Max, kFp16Max);
}

}  // namespace hs
