#pragma once
// The fixed record one reduction of a tensor gives (see tensor_stats.h). No LibTorch.
#include <cstdint>
#include <limits>

namespace hs {

struct TensorStats {
    int64_t count = 0;   // all elements
    int64_t finite = 0;  // finite elements; min..std are over these alone
    double min = std::numeric_limits<double>::quiet_NaN();
    double max = std::numeric_limits<double>::quiet_NaN();
    double absMax = std::numeric_limits<double>::quiet_NaN();
    double mean = std::numeric_limits<double>::quiet_NaN();
    double std = std::numeric_limits<double>::quiet_NaN();  // unbiased, like torch.std()
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;
    int64_t overFp16 = 0;  // finite values with |x| > 65504: past fp16's largest value (Inf from
                           // 65520; below that they round down to 65504)
    int64_t subnormalFp16 = 0;  // nonzero finite |x| < 2^-14: fp16-subnormal or flushed

    int64_t nonFinite() const { return nan + posInf + negInf; }
    bool allFinite() const { return nonFinite() == 0; }
};

}  // namespace hs
