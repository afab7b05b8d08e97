#include "numerics/format.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace hs {

const FormatLimits& limitsOf(Format f) {
    static const FormatLimits fp32{3.4028234663852886e38, 1.1754943508222875e-38,
                                   1.401298464324817e-45, 1.1920928955078125e-07, 23};
    static const FormatLimits bf16{3.3895313892515355e38, 1.1754943508222875e-38,
                                   9.183549615799121e-41, 0.0078125, 7};
    static const FormatLimits fp16{kFp16Max, kFp16MinNormal, 5.960464477539063e-08,
                                   0.0009765625, 10};
    switch (f) {
        case Format::FP32: return fp32;
        case Format::BF16: return bf16;
        case Format::FP16: return fp16;
    }
    return fp32;
}

std::string formatName(Format f) {
    switch (f) {
        case Format::FP32: return "fp32";
        case Format::BF16: return "bf16";
        case Format::FP16: return "fp16";
    }
    return "?";
}

std::optional<Format> parseFormat(const std::string& text) {
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t == "fp32" || t == "float32" || t == "f32" || t == "float") return Format::FP32;
    if (t == "bf16" || t == "bfloat16") return Format::BF16;
    if (t == "fp16" || t == "float16" || t == "f16" || t == "half") return Format::FP16;
    return std::nullopt;
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

std::string executionName(Execution e) { return e == Execution::Native ? "native" : "emulated"; }

Execution executionFor(Format f, const torch::Device& device) {
    if (device.is_cuda()) return Execution::Native;
    return f == Format::FP16 ? Execution::Emulated : Execution::Native;
}

torch::ScalarType computeTypeOf(Format f, const torch::Device& device) {
    return executionFor(f, device) == Execution::Native ? scalarTypeOf(f) : torch::kFloat32;
}

}  // namespace hs
