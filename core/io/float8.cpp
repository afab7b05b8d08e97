#include "io/float8.h"

#include <cmath>
#include <limits>

namespace hs {

namespace {

// (-1)^s * 2^(e - bias) * (1 + m / 2^mbits), subnormal when e == 0: 2^(1 - bias) * m / 2^mbits.
// std::ldexp of a small integer is exact, so every entry is the format's value exactly.
float finiteValue(int sign, int e, int m, int mbits, int bias) {
    const float v = e == 0 ? std::ldexp(float(m), 1 - bias - mbits)
                           : std::ldexp(float((1 << mbits) + m), e - bias - mbits);
    return sign ? -v : v;
}

std::array<float, 256> makeE4m3() {
    std::array<float, 256> t{};
    for (int b = 0; b < 256; ++b) {
        const int s = b >> 7, e = (b >> 3) & 15, m = b & 7;
        // "fn": the all-ones exponent holds numbers up to 448; only its all-ones mantissa is NaN.
        t[size_t(b)] = e == 15 && m == 7 ? std::numeric_limits<float>::quiet_NaN()
                                         : finiteValue(s, e, m, 3, 7);
    }
    return t;
}

std::array<float, 256> makeE5m2() {
    std::array<float, 256> t{};
    for (int b = 0; b < 256; ++b) {
        const int s = b >> 7, e = (b >> 2) & 31, m = b & 3;
        if (e == 31)  // IEEE: the all-ones exponent is Inf (mantissa 0) or NaN
            t[size_t(b)] = m == 0 ? (s ? -1.0f : 1.0f) * std::numeric_limits<float>::infinity()
                                  : std::numeric_limits<float>::quiet_NaN();
        else
            t[size_t(b)] = finiteValue(s, e, m, 2, 15);
    }
    return t;
}

}  // namespace

std::optional<Float8> float8Of(StDType t) {
    if (t == StDType::F8_E4M3) return Float8::E4M3;
    if (t == StDType::F8_E5M2) return Float8::E5M2;
    return std::nullopt;
}

const char* float8Name(Float8 f) {
    return f == Float8::E4M3 ? "e4m3" : "e5m2";
}

std::string storedDtypeLabel(StDType t, bool scaled) {
    const auto f = float8Of(t);
    if (!f) return stDTypeName(t);
    return std::string(scaled ? "scaled " : "") + float8Name(*f);
}

bool isFloatingDtypeLabel(const std::string& d) {
    return d == "F64" || d == "F32" || d == "F16" || d == "BF16" || d.find("e4m3") != d.npos ||
           d.find("e5m2") != d.npos;
}

const std::array<float, 256>& float8Table(Float8 f) {
    static const std::array<float, 256> e4m3 = makeE4m3(), e5m2 = makeE5m2();
    return f == Float8::E4M3 ? e4m3 : e5m2;
}

void decodeFloat8(Float8 f, const uint8_t* in, float* out, size_t n) {
    const float* table = float8Table(f).data();
    for (size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

}  // namespace hs
