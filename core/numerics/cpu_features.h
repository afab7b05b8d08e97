#pragma once
// x86 instruction set extensions the engine dispatches on, and the processor's name. GCC and
// clang on Linux ask __builtin_cpu_supports (which checks that the OS saves the registers too);
// Windows asks CPUID and IsProcessorFeaturePresent, because clang-cl's __builtin_cpu_supports
// needs compiler-rt's __cpu_model, which the MSVC linker does not bring in. False on other
// processors.
#include <string>

namespace hs {

enum class CpuFeature { Avx, F16c, Avx2, Avx512f, Avx512Bf16, AmxBf16 };

bool cpuSupports(CpuFeature f);

// "Intel(R) Xeon(R) ..." from CPUID's brand string; "" where there is none (not x86).
std::string cpuBrandString();

}  // namespace hs
