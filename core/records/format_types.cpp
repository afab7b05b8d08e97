#include "records/format_types.h"

#include <algorithm>
#include <cctype>

#include "base/enum_names.h"

namespace hs {

const FormatLimits& limitsOf(Format f) {
    static const FormatLimits fp32{3.4028234663852886e38, 1.1754943508222875e-38,
                                   1.401298464324817e-45, 1.1920928955078125e-07, 23};
    static const FormatLimits bf16{3.3895313892515355e38, 1.1754943508222875e-38,
                                   9.183549615799121e-41, 0.0078125, 7};
    static const FormatLimits fp16{kFp16Max, kFp16MinNormal, 5.960464477539063e-08, 0.0009765625,
                                   10};
    // fp32's exponent with fp16's 10 fraction bits: the largest value is (2 - 2^-10) 2^127.
    static const FormatLimits tf32{3.4011621342146535e38, 1.1754943508222875e-38,
                                   1.1479437019748901e-41, 0.0009765625, 10};
    switch (f) {
        case Format::FP32:
            return fp32;
        case Format::BF16:
            return bf16;
        case Format::FP16:
            return fp16;
        case Format::TF32:
            return tf32;
    }
    return fp32;
}

std::string formatName(Format f) {
    static constexpr EnumName<Format> names[] = {{Format::FP32, "fp32"},
                                                 {Format::BF16, "bf16"},
                                                 {Format::FP16, "fp16"},
                                                 {Format::TF32, "tf32"}};
    return nameIn(names, f);
}

std::optional<Format> parseFormat(const std::string& text) {
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t == "fp32" || t == "float32" || t == "f32" || t == "float") return Format::FP32;
    if (t == "bf16" || t == "bfloat16") return Format::BF16;
    if (t == "fp16" || t == "float16" || t == "f16" || t == "half") return Format::FP16;
    if (t == "tf32" || t == "tensorfloat32") return Format::TF32;
    return std::nullopt;
}

Format promoted(Format a, Format b) {
    return a == b ? a : Format::FP32;
}

bool storesFp32(Format f) {
    return f == Format::FP32 || f == Format::TF32;
}

std::string executionName(Execution e) {
    return e == Execution::Native ? "native" : "emulated";
}

namespace {
constexpr EnumName<CpuBf16> kCpuBf16Names[] = {
    {CpuBf16::Emulated, "emulated"}, {CpuBf16::Native, "native"}, {CpuBf16::Auto, "auto"}};
}  // namespace

std::string cpuBf16Name(CpuBf16 m) {
    return nameIn(kCpuBf16Names, m);
}

std::optional<CpuBf16> parseCpuBf16(const std::string& text) {
    return valueNamed(kCpuBf16Names, text);
}

Execution resolveCpuBf16(CpuBf16 mode, bool cpuHasBf16Instructions) {
    if (mode == CpuBf16::Native) return Execution::Native;
    if (mode == CpuBf16::Auto && cpuHasBf16Instructions) return Execution::Native;
    return Execution::Emulated;
}

}  // namespace hs
