#include "numerics/cpu_bf16.h"

#include <atomic>
#include <cstdlib>

#include "numerics/cpu_features.h"
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace hs {

namespace {
std::atomic<CpuBf16> g_cpuBf16{CpuBf16::Emulated};
}  // namespace

bool cpuHasBf16Instructions() {
    // Lets a machine with the instructions run as one without them (auto picks emulated, the
    // tests that compare with native bf16 skip, the trainer keeps fp32).
    static const bool assumeNone = std::getenv("HALFSCOPE_ASSUME_NO_BF16") != nullptr;
    if (assumeNone) return false;
#if defined(__x86_64__) || defined(_M_X64)
    static const bool has = cpuSupports(CpuFeature::Avx512Bf16) || cpuSupports(CpuFeature::AmxBf16);
    return has;
#elif defined(__aarch64__) && defined(__linux__) && defined(HWCAP2_BF16)
    static const bool has = (getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0;
    return has;
#else
    return false;
#endif
}

void setCpuBf16Mode(CpuBf16 mode) {
    g_cpuBf16.store(mode);
}

CpuBf16 cpuBf16Mode() {
    return g_cpuBf16.load();
}

Execution cpuBf16Execution() {
    return resolveCpuBf16(cpuBf16Mode(), cpuHasBf16Instructions());
}

MessageText cpuBf16DescriptionMessage() {
    MessageText m;
    if (cpuBf16Execution() == Execution::Emulated)
        m.push_back({"cpu_bf16.emulated", {}});
    else if (cpuHasBf16Instructions())
        m.push_back({"cpu_bf16.native", {}});
    else
        m.push_back({"cpu_bf16.native_slow", {}});
    m.push_back({"cpu_bf16.mode." + cpuBf16Name(cpuBf16Mode()), {}});
    return m;
}

std::string cpuBf16Description() {
    return englishText(cpuBf16DescriptionMessage());
}

}  // namespace hs
