#include "numerics/cpu_features.h"

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <intrin.h>
#include <windows.h>

#include <cstring>
#endif

// Older SDK headers lack these (Windows 10 20H1 and later report them).
#ifdef _WIN32
#ifndef PF_AVX_INSTRUCTIONS_AVAILABLE
#define PF_AVX_INSTRUCTIONS_AVAILABLE 39
#endif
#ifndef PF_AVX2_INSTRUCTIONS_AVAILABLE
#define PF_AVX2_INSTRUCTIONS_AVAILABLE 40
#endif
#ifndef PF_AVX512F_INSTRUCTIONS_AVAILABLE
#define PF_AVX512F_INSTRUCTIONS_AVAILABLE 41
#endif
#endif

namespace hs {

#if defined(_WIN32) && (defined(_M_X64) || defined(__x86_64__))

namespace {

struct Regs {
    int r[4] = {0, 0, 0, 0};  // eax, ebx, ecx, edx
};

Regs cpuid(int leaf, int sub = 0) {
    Regs x;
    __cpuidex(x.r, leaf, sub);
    return x;
}

bool bit(int reg, int n) {
    return (unsigned(reg) >> n) & 1u;
}

// XCR0 bits 17 and 18: the OS saves the AMX tile state. The intrinsic needs XSAVE enabled for
// this function only; it runs after CPUID said OSXSAVE.
__attribute__((target("xsave"))) unsigned long long xcr0() {
    return _xgetbv(0);
}

}  // namespace

bool cpuSupports(CpuFeature f) {
    const bool avxOs = ::IsProcessorFeaturePresent(PF_AVX_INSTRUCTIONS_AVAILABLE);
    const bool avx512Os = ::IsProcessorFeaturePresent(PF_AVX512F_INSTRUCTIONS_AVAILABLE);
    const int maxLeaf = cpuid(0).r[0];
    switch (f) {
        case CpuFeature::Avx:
            return avxOs;
        case CpuFeature::F16c:
            return avxOs && bit(cpuid(1).r[2], 29);
        case CpuFeature::Avx2:
            return ::IsProcessorFeaturePresent(PF_AVX2_INSTRUCTIONS_AVAILABLE);
        case CpuFeature::Avx512f:
            return avx512Os;
        case CpuFeature::Avx512Bf16:
            return avx512Os && maxLeaf >= 7 && cpuid(7).r[0] >= 1 && bit(cpuid(7, 1).r[0], 5);
        case CpuFeature::AmxBf16:
            return maxLeaf >= 7 && bit(cpuid(7).r[3], 22) && bit(cpuid(1).r[2], 27) &&
                   (xcr0() & 0x60000ull) == 0x60000ull;
    }
    return false;
}

std::string cpuBrandString() {
    if (unsigned(cpuid(int(0x80000000u)).r[0]) < 0x80000004u) return {};
    char brand[49] = {0};
    for (int i = 0; i < 3; ++i) {
        const Regs x = cpuid(int(0x80000002u) + i);
        std::memcpy(brand + 16 * i, x.r, 16);
    }
    std::string s(brand);
    const auto first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
}

#elif defined(__x86_64__)

bool cpuSupports(CpuFeature f) {
    switch (f) {
        case CpuFeature::Avx:
            return __builtin_cpu_supports("avx");
        case CpuFeature::F16c:
            return __builtin_cpu_supports("f16c");
        case CpuFeature::Avx2:
            return __builtin_cpu_supports("avx2");
        case CpuFeature::Avx512f:
            return __builtin_cpu_supports("avx512f");
        case CpuFeature::Avx512Bf16:
            return __builtin_cpu_supports("avx512bf16");
        case CpuFeature::AmxBf16:
            return __builtin_cpu_supports("amx-bf16");
    }
    return false;
}

std::string cpuBrandString() {
    return {};  // Linux reads /proc/cpuinfo (runtime/devices.cpp)
}

#else

bool cpuSupports(CpuFeature) {
    return false;
}

std::string cpuBrandString() {
    return {};
}

#endif

}  // namespace hs
