#include "numerics/format.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <immintrin.h>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <utility>

#include "base/enum_names.h"
#include "numerics/cpu_features.h"

namespace hs {

Execution executionFor(Format f, const torch::Device& device) {
    if (device.is_cuda()) return Execution::Native;
    if (f == Format::FP16) return Execution::Emulated;
    if (f == Format::BF16) return cpuBf16Execution();
    return Execution::Native;
}

namespace {
constexpr std::pair<Format, torch::ScalarType> kFormatTypes[] = {{Format::FP32, torch::kFloat32},
                                                                 {Format::BF16, torch::kBFloat16},
                                                                 {Format::FP16, torch::kFloat16}};
}  // namespace

torch::ScalarType scalarTypeOf(Format f) {
    return secondOf(kFormatTypes, f).value_or(torch::kFloat32);
}

std::optional<Format> formatOf(torch::ScalarType t) {
    return firstOf(kFormatTypes, t);
}

namespace {

// One pass over contiguous float32 memory, in parallel chunks: `chunk(in, out, n)` writes n
// rounded values. Twice as fast as x.to(kHalf).to(kFloat), which materialises the narrow tensor
// in between.
template <typename Chunk>
torch::Tensor mapFloatsCpu(const torch::Tensor& x, Chunk chunk) {
    auto src = x.contiguous();
    auto out = torch::empty_like(src);
    const float* in = src.data_ptr<float>();
    float* o = out.data_ptr<float>();
    at::parallel_for(0, src.numel(), 1 << 16,
                     [&](int64_t b, int64_t e) { chunk(in + b, o + b, e - b); });
    return out;
}

// Read, round through the narrow type, write.
template <typename Narrow>
torch::Tensor roundFloatCpu(const torch::Tensor& x) {
    return mapFloatsCpu(x, [](const float* in, float* out, int64_t n) {
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(Narrow(in[i]));
    });
}

// fp32 -> bf16 -> fp32 in integer arithmetic: round to nearest even at bit 16 (a carry into the
// exponent turns values past bf16's maximum into Inf), every NaN to the quiet NaN that
// c10::BFloat16 gives (0x7FC0). Branch-free, so the loop vectorises; 4x faster than
// converting through c10::BFloat16 one value at a time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void roundBf16Bits(const float* in, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
        uint32_t u;
        std::memcpy(&u, in + i, 4);
        uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
        r = (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : r;
        std::memcpy(out + i, &r, 4);
    }
}

torch::Tensor roundBf16Cpu(const torch::Tensor& x) {
    return mapFloatsCpu(x,
                        [](const float* in, float* out, int64_t n) { roundBf16Bits(in, out, n); });
}

#if defined(__x86_64__)
// fp32 -> fp16 -> fp32 with the F16C instructions, 8 values at a time (round to nearest even;
// overflow to Inf, NaN kept, subnormals exact: the same values as c10::Half's conversion). The
// portable loop above converts in software, one value at a time, ~4x slower.
__attribute__((target("avx,f16c"))) void roundHalfF16c(const float* in, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i) out[i] = static_cast<float>(c10::Half(in[i]));
}

torch::Tensor roundHalfCpu(const torch::Tensor& x) {
    static const bool f16c = cpuSupports(CpuFeature::F16c) && cpuSupports(CpuFeature::Avx);
    if (!f16c) return roundFloatCpu<c10::Half>(x);
    return mapFloatsCpu(x,
                        [](const float* in, float* out, int64_t n) { roundHalfF16c(in, out, n); });
}
#else
torch::Tensor roundHalfCpu(const torch::Tensor& x) {
    return roundFloatCpu<c10::Half>(x);
}
#endif

}  // namespace

torch::Tensor roundTo(const torch::Tensor& x, Format f) {
    TORCH_CHECK(x.is_floating_point(), "roundTo needs a floating tensor, got ", x.scalar_type());
    if (f == Format::FP32 && x.scalar_type() != torch::kFloat64) return x;
    if (formatOf(x.scalar_type()) == f) return x;
    if (x.device().is_cpu() && x.scalar_type() == torch::kFloat32) {
        return f == Format::FP16 ? roundHalfCpu(x) : roundBf16Cpu(x);
    }
    return x.to(scalarTypeOf(f)).to(x.scalar_type());
}

torch::ScalarType computeTypeOf(Format f, const torch::Device& device) {
    return executionFor(f, device) == Execution::Native ? scalarTypeOf(f) : torch::kFloat32;
}

torch::Tensor roundToFp8(const torch::Tensor& x, Remedy fp8) {
    // x = m * 2^e with m in [0.5, 1): the value's binade is 2^(e-1); its quantum there is
    // 2^(e-1-mantissaBits), no finer than the subnormals' 2^(minNormalExponent-mantissaBits).
    const bool e4m3 = fp8 == Remedy::Fp8E4M3;
    const int mantissaBits = e4m3 ? 3 : 2;
    const int minNormalExponent = e4m3 ? -6 : -14;
    const torch::Tensor v = x.to(torch::kFloat32);
    const auto [m, e] = torch::frexp(v);
    const torch::Tensor binade = (e - 1).clamp_min(minNormalExponent);
    const torch::Tensor quantum = torch::pow(2.0, (binade - mantissaBits).to(torch::kFloat32));
    return torch::round(v / quantum) * quantum;  // round: half to even; both scalings exact
}

torch::Tensor fp8ScaledWeight(const torch::Tensor& x, Remedy fp8) {
    const double largest = fp8 == Remedy::Fp8E4M3 ? 448.0 : 57344.0;
    const torch::Tensor v = x.to(torch::kFloat32);
    const double amax = v.numel() ? v.abs().max().item<double>() : 0.0;
    const float scale = amax > 0 && std::isfinite(amax) ? float(amax / largest) : 1.0f;
    return roundToFp8(v / scale, fp8) * scale;
}

}  // namespace hs
