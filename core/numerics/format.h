#pragma once
// LibTorch side of the formats: dtypes, rounding, and how a format executes on a device.
#include <torch/types.h>

#include <optional>
#include <string>

#include "numerics/cpu_bf16.h"
#include "records/format_types.h"
#include "records/precision_plan.h"

namespace hs {

torch::ScalarType scalarTypeOf(Format f);
std::optional<Format> formatOf(torch::ScalarType t);

// Rounds a floating tensor to the values representable in `f` (round to nearest even; values
// past the max become +-Inf exactly as a cast does) and returns it in x's dtype.
torch::Tensor roundTo(const torch::Tensor& x, Format f);

// Rounds x to tf32's values (10 fraction bits, fp32's exponent; round to nearest even, values
// past (2 - 2^-10) 2^127 become Inf, NaN stays NaN) in x's dtype: what a tensor core reads of an
// fp32 matmul or convolution input when TF32 is allowed.
torch::Tensor roundToTf32(const torch::Tensor& x);
// The same rounding in tensor ops (what a GPU tensor takes), float32; tests run it on the CPU.
torch::Tensor roundToTf32WithTensorOps(const torch::Tensor& x);

// Whether `device` computes tf32 natively: a CUDA GPU of compute capability 8.0 or more, with
// CUDA compiled in. Elsewhere tf32 is emulated (roundToTf32 on the inputs, fp32 arithmetic).
bool cudaHasTf32(const torch::Device& device);

// Rounds float32 x to fp8 (Remedy::Fp8E4M3: e4m3fn, 3 mantissa bits, subnormals from 2^-9;
// Fp8E5M2: 2 mantissa bits, subnormals from 2^-16), to nearest even; |x| is assumed within the
// format's largest value (448, 57344). Returns float32.
torch::Tensor roundToFp8(const torch::Tensor& x, Remedy fp8);
// A weight as an fp8 tensor with one scale holds it: x / s rounded to fp8, times s, where s is
// the largest |x| over the format's largest value (1 for an all-zero tensor). float32.
torch::Tensor fp8ScaledWeight(const torch::Tensor& x, Remedy fp8);

// How `f` runs on `device` with the LibTorch this binary was built against. CPU: fp32 native,
// fp16 emulated (LibTorch's CPU kernels for Half are incomplete), bf16 as cpuBf16Execution()
// says, tf32 emulated. CUDA: all native, but tf32 only from compute capability 8.0.
Execution executionFor(Format f, const torch::Device& device);

// The dtype that weights and activations use for (f, device): the format itself when native,
// float32 when emulated.
torch::ScalarType computeTypeOf(Format f, const torch::Device& device);

}  // namespace hs
