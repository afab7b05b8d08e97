#include "io/terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace hs {

namespace {

// The length of the valid UTF-8 sequence at s[i] and its code point; 0 when the bytes there
// are not one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or a
// sequence cut off by the end of `s`).
size_t utf8Sequence(std::string_view s, size_t i, uint32_t& cp) {
    const auto b = [&](size_t k) { return uint8_t(s[i + k]); };
    const uint8_t c = b(0);
    size_t n = 0;
    if (c < 0x80) {
        cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(k) & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

void hex(std::string& out, const char* format, unsigned v) {
    char buf[12];
    std::snprintf(buf, sizeof buf, format, v);
    out += buf;
}

std::string escape(std::string_view s, bool keepLines) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = 0;
        const size_t n = utf8Sequence(s, i, cp);
        if (n == 0) {
            hex(out, "\\x%02x", uint8_t(s[i]));
            ++i;
            continue;
        }
        if (cp < 0x20 || cp == 0x7F) {
            if (keepLines && (cp == '\n' || cp == '\t'))
                out += char(cp);
            else
                hex(out, "\\x%02x", cp);
        } else if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
                   (cp >= 0x2066 && cp <= 0x2069)) {
            hex(out, "\\u%04x", cp);
        } else {
            out.append(s.data() + i, n);
        }
        i += n;
    }
    return out;
}

}  // namespace

std::string printable(std::string_view s) {
    return escape(s, false);
}

std::string printableText(std::string_view s) {
    return escape(s, true);
}

size_t completeUtf8Prefix(std::string_view s) {
    // Look back at most 3 bytes for the lead byte of a sequence that runs past the end.
    for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
        const uint8_t c = uint8_t(s[s.size() - back]);
        if ((c & 0xC0) == 0x80) continue;  // a continuation byte: keep looking
        const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? s.size() - back : s.size();
    }
    return s.size();
}

}  // namespace hs
