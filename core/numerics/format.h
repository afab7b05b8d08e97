#pragma once
// LibTorch side of the formats: dtypes, rounding, and how a format executes on a device.
#include <torch/types.h>

#include <optional>
#include <string>

#include "numerics/cpu_bf16.h"
#include "records/format_types.h"

namespace hs {

torch::ScalarType scalarTypeOf(Format f);
std::optional<Format> formatOf(torch::ScalarType t);

// Rounds a floating tensor to the values representable in `f` (round to nearest even; values
// past the max become +-Inf exactly as a cast does) and returns it in x's dtype.
torch::Tensor roundTo(const torch::Tensor& x, Format f);

// How `f` runs on `device` with the LibTorch this binary was built against. CPU: fp32 native,
// fp16 emulated (LibTorch's CPU kernels for Half are incomplete), bf16 as cpuBf16Execution()
// says. CUDA: all native.
Execution executionFor(Format f, const torch::Device& device);

// The dtype that weights and activations use for (f, device): the format itself when native,
// float32 when emulated.
torch::ScalarType computeTypeOf(Format f, const torch::Device& device);

}  // namespace hs
