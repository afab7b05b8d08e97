#include "numerics/format.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace hs {

Execution executionFor(Format f, const torch::Device& device) {
    if (device.is_cuda()) return Execution::Native;
    return f == Format::FP16 ? Execution::Emulated : Execution::Native;
}

torch::ScalarType scalarTypeOf(Format f) {
    switch (f) {
        case Format::FP32: return torch::kFloat32;
        case Format::BF16: return torch::kBFloat16;
        case Format::FP16: return torch::kFloat16;
    }
    return torch::kFloat32;
}

std::optional<Format> formatOf(torch::ScalarType t) {
    if (t == torch::kFloat32) return Format::FP32;
    if (t == torch::kBFloat16) return Format::BF16;
    if (t == torch::kFloat16) return Format::FP16;
    return std::nullopt;
}

namespace {

// One pass over contiguous float32 memory: read, round through the narrow type, write.
// Twice as fast as x.to(kHalf).to(kFloat), which materialises the narrow tensor in between.
template <typename Narrow>
torch::Tensor roundFloatCpu(const torch::Tensor& x) {
    auto src = x.contiguous();
    auto out = torch::empty_like(src);
    const float* in = src.data_ptr<float>();
    float* o = out.data_ptr<float>();
    at::parallel_for(0, src.numel(), 1 << 16, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = static_cast<float>(Narrow(in[i]));
    });
    return out;
}

}  // namespace

torch::Tensor roundTo(const torch::Tensor& x, Format f) {
    TORCH_CHECK(x.is_floating_point(), "roundTo needs a floating tensor, got ", x.scalar_type());
    if (f == Format::FP32 && x.scalar_type() != torch::kFloat64) return x;
    if (formatOf(x.scalar_type()) == f) return x;
    if (x.device().is_cpu() && x.scalar_type() == torch::kFloat32) {
        return f == Format::FP16 ? roundFloatCpu<c10::Half>(x) : roundFloatCpu<c10::BFloat16>(x);
    }
    return x.to(scalarTypeOf(f)).to(x.scalar_type());
}


torch::ScalarType computeTypeOf(Format f, const torch::Device& device) {
    return executionFor(f, device) == Execution::Native ? scalarTypeOf(f) : torch::kFloat32;
}

}  // namespace hs
