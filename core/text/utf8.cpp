#include "text/utf8.h"

#include <cstdio>
#include <stdexcept>

namespace hs {

namespace {

[[noreturn]] void invalid(size_t offset, const char* what, unsigned byte) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", byte & 0xFFu);
    throw std::invalid_argument("invalid UTF-8 at byte offset " + std::to_string(offset) + ": " +
                                what + " " + hex);
}

}  // namespace

std::u32string decodeUtf8(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        const unsigned b = s[i];
        if (b < 0x80) {
            out.push_back(b);
            ++i;
            continue;
        }
        int len;
        char32_t cp;
        char32_t minCp;
        if (b >= 0xC2 && b <= 0xDF) {
            len = 2, cp = b & 0x1F, minCp = 0x80;
        } else if (b >= 0xE0 && b <= 0xEF) {
            len = 3, cp = b & 0x0F, minCp = 0x800;
        } else if (b >= 0xF0 && b <= 0xF4) {
            len = 4, cp = b & 0x07, minCp = 0x10000;
        } else if (b >= 0x80 && b <= 0xBF) {
            invalid(i, "unexpected continuation byte", b);
        } else {
            invalid(i, "invalid lead byte", b);  // C0, C1 (overlong ASCII) and F5..FF
        }
        for (int k = 1; k < len; ++k) {
            if (i + k >= n) invalid(i, "truncated sequence starting with", b);
            const unsigned c = s[i + k];
            if ((c & 0xC0) != 0x80) invalid(i, "truncated sequence starting with", b);
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < minCp) invalid(i, "overlong sequence starting with", b);
        if (cp >= 0xD800 && cp <= 0xDFFF) invalid(i, "encoded surrogate starting with", b);
        if (cp > 0x10FFFF) invalid(i, "codepoint past U+10FFFF starting with", b);
        out.push_back(cp);
        i += len;
    }
    return out;
}

void appendUtf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

std::string encodeUtf8(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t cp : text) appendUtf8(out, cp);
    return out;
}

}  // namespace hs
