#include "numerics/tensor_stats.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "numerics/format.h"

namespace hs {

namespace {

struct Partial {
    int64_t finite = 0, nan = 0, posInf = 0, negInf = 0, over = 0, sub = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double sum = 0, sumSq = 0;

    void merge(const Partial& o) {
        finite += o.finite;
        nan += o.nan;
        posInf += o.posInf;
        negInf += o.negInf;
        over += o.over;
        sub += o.sub;
        min = std::min(min, o.min);
        max = std::max(max, o.max);
        sum += o.sum;
        sumSq += o.sumSq;
    }
};

TensorStats finish(int64_t count, const Partial& p) {
    TensorStats s;
    s.count = count;
    s.finite = p.finite;
    s.nan = p.nan;
    s.posInf = p.posInf;
    s.negInf = p.negInf;
    s.overFp16 = p.over;
    s.subnormalFp16 = p.sub;
    if (p.finite > 0) {
        s.min = p.min;
        s.max = p.max;
        s.absMax = std::max(std::fabs(p.min), std::fabs(p.max));
        s.mean = p.sum / double(p.finite);
        if (p.finite > 1) {
            double var = (p.sumSq - p.sum * s.mean) / double(p.finite - 1);
            s.std = std::sqrt(std::max(var, 0.0));
        } else {
            s.std = 0.0;
        }
    }
    return s;
}

// The reference loop, one element at a time: half and double tensors, the tails of the vector
// loop, and compilers without vector extensions.
template <typename T>
void scalarStats(const T* data, int64_t b, int64_t e, Partial& p) {
    using Acc = std::conditional_t<std::is_same<T, double>::value, double, float>;
    for (int64_t i = b; i < e; ++i) {
        const Acc v = static_cast<Acc>(data[i]);
        if (std::isfinite(v)) {
            ++p.finite;
            p.min = std::min(p.min, double(v));
            p.max = std::max(p.max, double(v));
            p.sum += v;
            p.sumSq += double(v) * v;
            const Acc a = std::fabs(v);
            p.over += a > Acc(kFp16Max);
            p.sub += (a != Acc(0)) & (a < Acc(kFp16MinNormal));
        } else if (std::isnan(v)) {
            ++p.nan;
        } else if (v > 0) {
            ++p.posInf;
        } else {
            ++p.negInf;
        }
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define HALFSCOPE_VECTOR_STATS 1

// Four float32 lanes (one SSE2/NEON register, the x86-64 baseline) through GCC/Clang vector
// extensions. The element loop above branches four ways per element and does not vectorise;
// this one is branch-free: every class test is an integer compare on the bit pattern (|x| bits
// order like the magnitudes, and a bit test is immune to denormals-are-zero mode, which
// configureRuntime() turns on), the moments stay in double (float32 -> double is exact), and
// the counters that need an AND are derived: nan = n - finite - inf, over = (|x| > max) -
// non-finite, subnormal = (|x| < min normal) - zeros. About 5x faster than the element loop.
typedef float VecF __attribute__((vector_size(16)));
typedef int32_t VecI __attribute__((vector_size(16)));
typedef uint32_t VecU __attribute__((vector_size(16)));
typedef uint16_t VecH __attribute__((vector_size(8)));
typedef double VecD __attribute__((vector_size(32)));
constexpr int kLanes = 4;

inline VecI loadBits(const float* p) {
    VecI v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline VecI loadBits(const c10::BFloat16* p) {  // bf16 is the top half of a float32
    VecH h;
    std::memcpy(&h, p, sizeof h);
    return (VecI)(__builtin_convertvector(h, VecU) << 16);
}

template <typename T>
void vectorStats(const T* data, int64_t b, int64_t e, Partial& p) {
    constexpr int64_t kRun = 1 << 12;  // int32 lane counters cannot overflow within a run
    const VecI expAll = VecI{} + 0x7F800000, negInf = VecI{} + int32_t(0xFF800000u);
    const VecI absMask = VecI{} + 0x7FFFFFFF;
    const VecI maxBits = VecI{} + 0x477FE000;   // 65504.f
    const VecI normBits = VecI{} + 0x38800000;  // 2^-14
    int64_t i = b;
    while (e - i >= kLanes) {
        const int64_t n = std::min<int64_t>((e - i) / kLanes * kLanes, kRun);
        const int64_t end = i + n;
        VecD sum = {}, sq = {};
        VecF mn, mx;
        std::memcpy(&mn, &expAll, sizeof mn);  // +Inf
        std::memcpy(&mx, &negInf, sizeof mx);
        VecI fin = {}, pinf = {}, ninf = {}, gtMax = {}, ltNorm = {}, zero = {};
        for (; i < end; i += kLanes) {
            const VecI u = loadBits(data + i);
            const VecI a = u & absMask;
            const VecI isFin = a < expAll;  // compares give -1 for true
            fin -= isFin;
            pinf -= u == expAll;
            ninf -= u == negInf;
            gtMax -= a > maxBits;
            ltNorm -= a < normBits;
            zero -= a == 0;
            const VecI fz = u & isFin;  // the value if finite, else +0
            VecF x, lo, hi;
            std::memcpy(&x, &fz, sizeof x);
            const VecI loBits = fz | (expAll & ~isFin), hiBits = fz | (negInf & ~isFin);
            std::memcpy(&lo, &loBits, sizeof lo);
            std::memcpy(&hi, &hiBits, sizeof hi);
            const VecD xd = __builtin_convertvector(x, VecD);
            sum += xd;
            sq += xd * xd;
            mn = lo < mn ? lo : mn;
            mx = hi > mx ? hi : mx;
        }
        int64_t f = 0, pi = 0, ni = 0, g = 0, lt = 0, z = 0;
        for (int k = 0; k < kLanes; ++k) {
            f += fin[k], pi += pinf[k], ni += ninf[k], g += gtMax[k], lt += ltNorm[k], z += zero[k];
            p.sum += sum[k];
            p.sumSq += sq[k];
            p.min = std::min(p.min, double(mn[k]));
            p.max = std::max(p.max, double(mx[k]));
        }
        p.finite += f;
        p.posInf += pi;
        p.negInf += ni;
        p.nan += n - f - pi - ni;
        p.over += g - (n - f);
        p.sub += lt - z;
    }
    scalarStats(data, i, e, p);
}
#endif

// Single pass over contiguous memory, split across threads; each thread reduces its range into
// a Partial (double moments, integer counts) and merges it once.
template <typename T>
TensorStats cpuStats(const torch::Tensor& x) {
    // The order of the elements does not matter here: a dense tensor in another memory format
    // (oneDNN's convolutions return channels-last) is read in place rather than copied first.
    auto c = x.is_contiguous() || x.is_non_overlapping_and_dense() ? x : x.contiguous();
    const T* data = c.data_ptr<T>();
    const int64_t n = c.numel();
    Partial total;
    std::mutex mu;
    at::parallel_for(0, n, 1 << 15, [&](int64_t b, int64_t e) {
        Partial p;
#ifdef HALFSCOPE_VECTOR_STATS
        if constexpr (std::is_same<T, float>::value || std::is_same<T, c10::BFloat16>::value)
            vectorStats(data, b, e, p);
        else
            scalarStats(data, b, e, p);
#else
        scalarStats(data, b, e, p);
#endif
        std::lock_guard<std::mutex> lock(mu);
        total.merge(p);
    });
    return finish(n, total);
}

}  // namespace

TensorStats unpackStats(const double* v) {
    Partial p;
    p.finite = int64_t(v[1]);
    p.min = v[2];
    p.max = v[3];
    p.sum = v[5];
    p.sumSq = v[6];
    p.nan = int64_t(v[7]);
    p.posInf = int64_t(v[8]);
    p.negInf = int64_t(v[9]);
    p.over = int64_t(v[10]);
    p.sub = int64_t(v[11]);
    return finish(int64_t(v[0]), p);
}

torch::Tensor statsVector(const torch::Tensor& x) {
    TORCH_CHECK(x.is_floating_point(), "statistics need a floating tensor, got ", x.scalar_type());
    auto opts = torch::TensorOptions().dtype(torch::kFloat64).device(x.device());
    if (x.numel() == 0) {
        auto v = torch::zeros({kStatsWidth}, opts);
        v[2] = std::numeric_limits<double>::infinity();
        v[3] = -std::numeric_limits<double>::infinity();
        return v;
    }
    auto d = x.detach().to(torch::kFloat64).flatten();
    auto fin = torch::isfinite(d);
    auto nan = torch::isnan(d);
    auto inf = torch::isinf(d);
    auto finiteVals = torch::where(fin, d, torch::zeros_like(d));
    const double inf64 = std::numeric_limits<double>::infinity();
    auto mn = torch::where(fin, d, torch::full_like(d, inf64)).min();
    auto mx = torch::where(fin, d, torch::full_like(d, -inf64)).max();
    auto a = finiteVals.abs();
    return torch::stack(
        {torch::full({}, double(d.numel()), opts), fin.sum().to(torch::kFloat64), mn, mx,
         torch::maximum(mn.abs(), mx.abs()), finiteVals.sum(), (finiteVals * finiteVals).sum(),
         nan.sum().to(torch::kFloat64), (inf & (d > 0)).sum().to(torch::kFloat64),
         (inf & (d < 0)).sum().to(torch::kFloat64), (a > kFp16Max).sum().to(torch::kFloat64),
         ((a > 0) & (a < kFp16MinNormal)).sum().to(torch::kFloat64)});
}

TensorStats computeStats(const torch::Tensor& x) {
    TORCH_CHECK(x.is_floating_point(), "statistics need a floating tensor, got ", x.scalar_type());
    if (x.device().is_cpu()) {
        switch (x.scalar_type()) {
            case torch::kFloat32:
                return cpuStats<float>(x);
            case torch::kBFloat16:
                return cpuStats<c10::BFloat16>(x);
            case torch::kFloat16:
                return cpuStats<c10::Half>(x);
            case torch::kFloat64:
                return cpuStats<double>(x);
            default:
                break;
        }
    }
    auto v = statsVector(x).cpu();
    return unpackStats(v.data_ptr<double>());
}

}  // namespace hs
