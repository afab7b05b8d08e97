#pragma once
// Floating-point storage formats the studio runs modules in, their limits, and how a format
// executes on a device (natively or emulated).
#include <optional>
#include <string>

#include <torch/types.h>

namespace hs {

enum class Format { FP32, BF16, FP16 };

struct FormatLimits {
    double maxFinite;     // largest finite value; anything rounding past it becomes Inf
    double minNormal;     // smallest positive normal
    double minSubnormal;  // smallest positive subnormal
    double epsilon;       // distance from 1 to the next representable value
    int mantissaBits;     // explicit fraction bits
};

// fp16's largest finite value, the limit the whole product is about.
constexpr double kFp16Max = 65504.0;
constexpr double kFp16MinNormal = 6.103515625e-05;  // 2^-14

const FormatLimits& limitsOf(Format f);
std::string formatName(Format f);  // "fp32", "bf16", "fp16"
// Accepts fp32/float32/f32, bf16/bfloat16, fp16/float16/half/f16 (case-insensitive).
std::optional<Format> parseFormat(const std::string& text);
torch::ScalarType scalarTypeOf(Format f);
std::optional<Format> formatOf(torch::ScalarType t);

// Rounds a floating tensor to the values representable in `f` (round to nearest even; values
// past the max become +-Inf exactly as a cast does) and returns it in x's dtype.
torch::Tensor roundTo(const torch::Tensor& x, Format f);

enum class Execution {
    Native,    // the backend has kernels: weights and activations live in the format
    Emulated,  // compute in fp32, weights and each op output rounded to the format
};
std::string executionName(Execution e);

// How `f` runs on `device` with the LibTorch this binary was built against. CPU: fp32 and bf16
// native, fp16 emulated (LibTorch's CPU kernels for Half are incomplete). CUDA: all native.
Execution executionFor(Format f, const torch::Device& device);

// The dtype that weights and activations use for (f, device): the format itself when native,
// float32 when emulated.
torch::ScalarType computeTypeOf(Format f, const torch::Device& device);

}  // namespace hs
