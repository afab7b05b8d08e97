#pragma once
// One reduction of a tensor into a fixed record of statistics.
#include <cstdint>
#include <limits>

#include <torch/types.h>

namespace hs {

struct TensorStats {
    int64_t count = 0;        // all elements
    int64_t finite = 0;       // finite elements; min..std are over these alone
    double min = std::numeric_limits<double>::quiet_NaN();
    double max = std::numeric_limits<double>::quiet_NaN();
    double absMax = std::numeric_limits<double>::quiet_NaN();
    double mean = std::numeric_limits<double>::quiet_NaN();
    double std = std::numeric_limits<double>::quiet_NaN();  // unbiased, like torch.std()
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;
    int64_t overFp16 = 0;       // finite values with |x| > 65504: they would become Inf in fp16
    int64_t subnormalFp16 = 0;  // nonzero finite |x| < 2^-14: fp16-subnormal or flushed

    int64_t nonFinite() const { return nan + posInf + negInf; }
    bool allFinite() const { return nonFinite() == 0; }
};

// Number of doubles in the packed form of TensorStats (see statsVector()).
constexpr int kStatsWidth = 12;

// Computes the statistics of `x` (any floating dtype, any device, empty allowed).
// CPU float32/bf16/fp16/float64 tensors take a single-pass parallel kernel; other devices
// reduce on the device into a packed vector and copy it to the host once.
TensorStats computeStats(const torch::Tensor& x);

// The packed form, left on x's device (float64, [kStatsWidth]) so that many can be gathered
// and copied to the host in one transfer:
// [count, finite, min, max, absMax, sum, sumSq, nan, posInf, negInf, overFp16, subnormalFp16]
torch::Tensor statsVector(const torch::Tensor& x);
TensorStats unpackStats(const double* packed);

}  // namespace hs
