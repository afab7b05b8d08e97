#include "numerics/tensor_stats.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/torch.h>

#include <cmath>
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

// Single pass: each block reduces into float accumulators over a short run, then into doubles,
// so the inner loop stays vectorisable and the sums keep double precision.
template <typename T>
TensorStats cpuStats(const torch::Tensor& x) {
    auto c = x.contiguous();
    using Acc = std::conditional_t<std::is_same<T, double>::value, double, float>;
    const T* data = c.data_ptr<T>();
    const int64_t n = c.numel();
    Partial total;
    std::mutex mu;
    at::parallel_for(0, n, 1 << 15, [&](int64_t b, int64_t e) {
        Partial p;
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
    return torch::stack({torch::full({}, double(d.numel()), opts), fin.sum().to(torch::kFloat64),
                         mn, mx, torch::maximum(mn.abs(), mx.abs()), finiteVals.sum(),
                         (finiteVals * finiteVals).sum(), nan.sum().to(torch::kFloat64),
                         (inf & (d > 0)).sum().to(torch::kFloat64),
                         (inf & (d < 0)).sum().to(torch::kFloat64),
                         (a > kFp16Max).sum().to(torch::kFloat64),
                         ((a > 0) & (a < kFp16MinNormal)).sum().to(torch::kFloat64)});
}

TensorStats computeStats(const torch::Tensor& x) {
    TORCH_CHECK(x.is_floating_point(), "statistics need a floating tensor, got ", x.scalar_type());
    if (x.device().is_cpu()) {
        switch (x.scalar_type()) {
            case torch::kFloat32: return cpuStats<float>(x);
            case torch::kBFloat16: return cpuStats<c10::BFloat16>(x);
            case torch::kFloat16: return cpuStats<c10::Half>(x);
            case torch::kFloat64: return cpuStats<double>(x);
            default: break;
        }
    }
    auto v = statsVector(x).cpu();
    return unpackStats(v.data_ptr<double>());
}

}  // namespace hs
