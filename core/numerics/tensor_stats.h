#pragma once
// One reduction of a tensor into a fixed record of statistics.
#include <torch/types.h>

#include "records/stats_types.h"

namespace hs {

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
