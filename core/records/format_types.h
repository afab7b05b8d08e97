#pragma once
// Floating-point storage formats, their limits, and the two ways a format executes (natively or
// emulated). No LibTorch: run records, reports and the widgets use these too.
#include <optional>
#include <string>

namespace hs {

// TF32: what NVIDIA's tensor cores compute fp32 matmuls and convolutions in when TF32 is
// allowed (torch.backends.cuda.matmul.allow_tf32 / cudnn.allow_tf32): the inputs of each matmul
// and convolution rounded to 10 mantissa bits with fp32's 8-bit exponent, fp32 accumulation and
// fp32 storage. Its range is fp32's; only the products lose precision.
enum class Format { FP32, BF16, FP16, TF32 };
// Every format, in the order tools list them.
constexpr Format kFormats[] = {Format::FP32, Format::BF16, Format::FP16, Format::TF32};

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
std::string formatName(Format f);  // "fp32", "bf16", "fp16", "tf32"
// Accepts fp32/float32/f32, bf16/bfloat16, fp16/float16/half/f16, tf32 (case-insensitive).
std::optional<Format> parseFormat(const std::string& text);
// The format of a + b under PyTorch's type promotion: the same format, else fp32 (fp16 + bf16
// gives fp32 too). A residual stream that meets a layer kept in fp32 stays fp32 from there on.
// TF32 stores fp32, so a sum with it is fp32's.
Format promoted(Format a, Format b);
// A format whose values are stored as fp32 (fp32 itself and TF32): nothing is rounded where an
// op's output is stored, and the weights' memory is fp32's.
bool storesFp32(Format f);

enum class Execution {
    Native,    // the backend has kernels: weights and activations live in the format
    Emulated,  // compute in fp32, weights and each op output rounded to the format
};
std::string executionName(Execution e);

// How bf16 runs on a CPU. Emulated is the reference arithmetic and the default on every CPU: fp32
// compute with the weights rounded to bf16 and every probe point's output rounded to bf16, which
// is what a GPU does when it accumulates in fp32 and stores bf16. Native runs oneDNN's bf16
// kernels: fast where the CPU has bf16 instructions (AVX512-BF16, AMX, Arm BF16), about 13x
// slower than fp32 and with bf16 accumulation in places where it has none. Auto picks native
// exactly where the CPU has the instructions.
enum class CpuBf16 { Emulated, Native, Auto };
std::string cpuBf16Name(CpuBf16 m);  // "emulated", "native", "auto"
std::optional<CpuBf16> parseCpuBf16(const std::string& text);
// The execution a mode gives bf16 on a CPU with or without bf16 instructions.
Execution resolveCpuBf16(CpuBf16 mode, bool cpuHasBf16Instructions);

}  // namespace hs
