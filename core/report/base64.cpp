#include "report/base64.h"

#include <stdexcept>

namespace hs {

namespace {
const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int valueOf(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}
}  // namespace

std::string base64Encode(const uint8_t* d, size_t n) {
    std::string out;
    out.reserve((n + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        const uint32_t v = uint32_t(d[i]) << 16 | uint32_t(d[i + 1]) << 8 | d[i + 2];
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = uint32_t(d[i]) << 16;
        if (i + 1 < n) v |= uint32_t(d[i + 1]) << 8;
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::vector<uint8_t> base64Decode(const std::string& t) {
    if (t.size() % 4 != 0)
        throw std::invalid_argument("base64 text of " + std::to_string(t.size()) +
                                    " characters is not a multiple of 4");
    std::vector<uint8_t> out;
    out.reserve(t.size() / 4 * 3);
    for (size_t i = 0; i < t.size(); i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = t[i + k];
            const bool last = i + 4 == t.size();
            if (c == '=' && last && k >= 2 && (k == 3 || t[i + 3] == '=')) {
                v[k] = 0;
                ++pad;
                continue;
            }
            v[k] = valueOf(c);
            if (v[k] < 0 || pad > 0)
                throw std::invalid_argument("invalid base64 character at offset " +
                                            std::to_string(i + k));
        }
        const uint32_t x = uint32_t(v[0]) << 18 | uint32_t(v[1]) << 12 | uint32_t(v[2]) << 6 | v[3];
        out.push_back(uint8_t(x >> 16));
        if (pad < 2) out.push_back(uint8_t(x >> 8));
        if (pad < 1) out.push_back(uint8_t(x));
    }
    return out;
}

}  // namespace hs
