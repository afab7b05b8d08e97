#include "numerics/format.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <immintrin.h>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <utility>

#ifdef HALFSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include "base/enum_names.h"
#include "numerics/cpu_features.h"

namespace hs {

bool cudaHasTf32(const torch::Device& device) {
#ifdef HALFSCOPE_WITH_CUDA
    if (!device.is_cuda()) return false;
    const int index = device.has_index() ? device.index() : 0;
    return at::cuda::getDeviceProperties(index)->major >= 8;  // Ampere's tensor cores on
#else
    (void)device;
    return false;
#endif
}

Execution executionFor(Format f, const torch::Device& device) {
    if (f == Format::TF32) return cudaHasTf32(device) ? Execution::Native : Execution::Emulated;
    if (device.is_cuda()) return Execution::Native;
    if (f == Format::FP16) return Execution::Emulated;
    if (f == Format::BF16) return cpuBf16Execution();
    return Execution::Native;
}

namespace {
constexpr std::pair<Format, torch::ScalarType> kFormatTypes[] = {{Format::FP32, torch::kFloat32},
                                                                 {Format::BF16, torch::kBFloat16},
                                                                 {Format::FP16, torch::kFloat16},
                                                                 {Format::TF32, torch::kFloat32}};
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

// fp32 rounded to `keep` fraction bits in integer arithmetic (bf16: 7, tf32: 10): round to
// nearest even at the first dropped bit (a carry into the exponent turns values past the
// narrow format's maximum into Inf), every NaN to the quiet NaN that c10::BFloat16 gives
// (0x7FC00000). Branch-free, so the loop vectorises; 4x faster than converting through
// c10::BFloat16 one value at a time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void roundFractionBits(const float* in, float* out, int64_t n, int keep) {
    const int drop = 23 - keep;
    const uint32_t mask = ~((1u << drop) - 1u), half = (1u << (drop - 1)) - 1u;
    for (int64_t i = 0; i < n; ++i) {
        uint32_t u;
        std::memcpy(&u, in + i, 4);
        uint32_t r = (u + half + ((u >> drop) & 1u)) & mask;
        r = (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : r;
        std::memcpy(out + i, &r, 4);
    }
}

torch::Tensor roundBf16Cpu(const torch::Tensor& x) {
    return mapFloatsCpu(
        x, [](const float* in, float* out, int64_t n) { roundFractionBits(in, out, n, 7); });
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
    if (f == Format::TF32) return roundToTf32(x);
    if (f == Format::FP32 && x.scalar_type() != torch::kFloat64) return x;
    if (formatOf(x.scalar_type()) == f) return x;
    if (x.device().is_cpu() && x.scalar_type() == torch::kFloat32) {
        return f == Format::FP16 ? roundHalfCpu(x) : roundBf16Cpu(x);
    }
    return x.to(scalarTypeOf(f)).to(x.scalar_type());
}

torch::Tensor roundToTf32(const torch::Tensor& x) {
    TORCH_CHECK(x.is_floating_point(), "roundToTf32 needs a floating tensor, got ",
                x.scalar_type());
    // Half types hold 10 fraction bits or fewer and no more range than tf32's: already exact.
    if (x.scalar_type() == torch::kFloat16 || x.scalar_type() == torch::kBFloat16) return x;
    const torch::Tensor v = x.to(torch::kFloat32);
    if (!v.device().is_cpu()) return roundToTf32WithTensorOps(v).to(x.scalar_type());
    return mapFloatsCpu(
               v, [](const float* in, float* out, int64_t n) { roundFractionBits(in, out, n, 10); })
        .to(x.scalar_type());
}

torch::Tensor roundToTf32WithTensorOps(const torch::Tensor& x) {
    const torch::Tensor v = x.to(torch::kFloat32).contiguous();
    const torch::Tensor u = v.view(torch::kInt32);
    // Signed int32 arithmetic wraps as the unsigned does: the sign bit rides along unchanged
    // unless the exponent carries out of it, which needs |v| past Inf (NaN, handled below).
    const torch::Tensor odd = torch::bitwise_and(torch::bitwise_right_shift(u, 13), 1);
    torch::Tensor r =
        torch::bitwise_and(u + 0xFFF + odd, int32_t(0xFFFFE000u)).view(torch::kFloat32);
    return torch::where(torch::isnan(v), v, r);
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
