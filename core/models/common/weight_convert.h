#pragma once
// How convertWeight (models/common/weights.h) converts one stored tensor: a large tensor (a
// T5-XXL token embedding of 32128 x 4096, a FLUX block's fused projection) is cast and copied in
// slices along dim 0, so that a load checks cancellation and reports its progress between slices
// instead of once per tensor (a cold mapped file can take seconds for one tensor). The result is
// the same, bit for bit, as the one-shot copy; the peak memory is the result plus one slice.
#include <torch/types.h>

#include <cstdint>
#include <string>

#include "numerics/precision_policy.h"

namespace hs {

// Slice size of convertWeight: ~30 ms of bf16 -> fp32 copy on one core, small next to a tensor.
constexpr uint64_t kWeightChunkBytes = uint64_t(32) << 20;

// convertWeight with the slice size given: slices of at most `chunkBytes` stored bytes (at least
// one row of dim 0); 0, a 0-d tensor or a tensor no larger than one slice: one copy.
torch::Tensor convertWeightInChunks(const torch::Tensor& stored, torch::ScalarType dstType,
                                    bool floating, const std::string& component,
                                    const std::string& key, const PrecisionPolicy& policy,
                                    uint64_t chunkBytes);

}  // namespace hs
