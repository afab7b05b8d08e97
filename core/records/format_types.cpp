#include "records/format_types.h"

#include <algorithm>
#include <cctype>

namespace hs {

const FormatLimits& limitsOf(Format f) {
    static const FormatLimits fp32{3.4028234663852886e38, 1.1754943508222875e-38,
                                   1.401298464324817e-45, 1.1920928955078125e-07, 23};
    static const FormatLimits bf16{3.3895313892515355e38, 1.1754943508222875e-38,
                                   9.183549615799121e-41, 0.0078125, 7};
    static const FormatLimits fp16{kFp16Max, kFp16MinNormal, 5.960464477539063e-08, 0.0009765625,
                                   10};
    switch (f) {
        case Format::FP32:
            return fp32;
        case Format::BF16:
            return bf16;
        case Format::FP16:
            return fp16;
    }
    return fp32;
}

std::string formatName(Format f) {
    switch (f) {
        case Format::FP32:
            return "fp32";
        case Format::BF16:
            return "bf16";
        case Format::FP16:
            return "fp16";
    }
    return "?";
}

std::optional<Format> parseFormat(const std::string& text) {
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t == "fp32" || t == "float32" || t == "f32" || t == "float") return Format::FP32;
    if (t == "bf16" || t == "bfloat16") return Format::BF16;
    if (t == "fp16" || t == "float16" || t == "f16" || t == "half") return Format::FP16;
    return std::nullopt;
}

Format promoted(Format a, Format b) {
    return a == b ? a : Format::FP32;
}

std::string executionName(Execution e) {
    return e == Execution::Native ? "native" : "emulated";
}

std::string cpuBf16Name(CpuBf16 m) {
    switch (m) {
        case CpuBf16::Emulated:
            return "emulated";
        case CpuBf16::Native:
            return "native";
        case CpuBf16::Auto:
            return "auto";
    }
    return "?";
}

std::optional<CpuBf16> parseCpuBf16(const std::string& text) {
    for (auto m : {CpuBf16::Emulated, CpuBf16::Native, CpuBf16::Auto})
        if (text == cpuBf16Name(m)) return m;
    return std::nullopt;
}

Execution resolveCpuBf16(CpuBf16 mode, bool cpuHasBf16Instructions) {
    if (mode == CpuBf16::Native) return Execution::Native;
    if (mode == CpuBf16::Auto && cpuHasBf16Instructions) return Execution::Native;
    return Execution::Emulated;
}

}  // namespace hs
