#include "text/qwen_pretokenizer.h"

#include <array>

#include "text/unicode.h"

namespace hs {

namespace {

// Unicode White_Space, which \s matches in the regex module and in Oniguruma.
bool isWhiteSpace(char32_t c) {
    if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D);
    if (c < 0x85) return false;
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

QwenCharClass classify(char32_t cp) {
    if (isWhiteSpace(cp)) return QwenCharClass::Space;
    // The CLIP table's letter and number classes are the regex module's \p{L} and \p{N}; its
    // "skipped" class outside White_Space holds only characters no CLIP alternative matches
    // (U+001C..U+001F, which str.isspace() calls space, and U+0345 under IGNORECASE): without
    // IGNORECASE, as here, they are [^\s\p{L}\p{N}].
    switch (clipCharClass(cp)) {
        case ClipCharClass::Letter:
            return QwenCharClass::Letter;
        case ClipCharClass::Number:
            return QwenCharClass::Number;
        default:
            return QwenCharClass::Other;
    }
}

const std::array<QwenCharClass, 128>& asciiClasses() {
    static const std::array<QwenCharClass, 128> table = [] {
        std::array<QwenCharClass, 128> t{};
        for (char32_t c = 0; c < 128; ++c) t[c] = classify(c);
        return t;
    }();
    return table;
}

bool isNewline(char32_t c) {
    return c == '\r' || c == '\n';
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at t[i] == '\'': the length matched, 0 for none. IGNORECASE adds
// U+017F LONG S to 's'; the other letters have only their ASCII case pair.
size_t contraction(const std::u32string& t, size_t i) {
    auto at = [&](size_t k) -> char32_t {
        if (i + k >= t.size()) return 0;
        const char32_t c = t[i + k];
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    };
    const char32_t a = at(1);
    if (a == 's' || a == 0x17F || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' || a == 'v') && at(2) == 'e') return 3;
    if (a == 'l' && at(2) == 'l') return 3;
    return 0;
}

}  // namespace

QwenCharClass qwenCharClass(char32_t cp) {
    return cp < 128 ? asciiClasses()[cp] : classify(cp);
}

std::vector<std::pair<size_t, size_t>> qwenPretokenize(const std::u32string& t) {
    const size_t n = t.size();
    std::vector<QwenCharClass> cls(n);
    for (size_t i = 0; i < n; ++i) cls[i] = qwenCharClass(t[i]);
    auto run = [&](size_t j, QwenCharClass c) {
        while (j < n && cls[j] == c) ++j;
        return j;
    };
    std::vector<std::pair<size_t, size_t>> out;
    size_t i = 0;
    while (i < n) {
        const char32_t c = t[i];
        const QwenCharClass k = cls[i];
        size_t end = 0;
        if (c == '\'') {
            if (const size_t len = contraction(t, i)) end = i + len;
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if (!end && k == QwenCharClass::Letter) {
            end = run(i, QwenCharClass::Letter);
        } else if (!end && k != QwenCharClass::Number && !isNewline(c) && i + 1 < n &&
                   cls[i + 1] == QwenCharClass::Letter) {
            end = run(i + 1, QwenCharClass::Letter);
        }
        // \p{N}
        if (!end && k == QwenCharClass::Number) end = i + 1;
        // " ?[^\s\p{L}\p{N}]+[\r\n]*"
        if (!end) {
            size_t j = i;
            if (c == ' ' && i + 1 < n && cls[i + 1] == QwenCharClass::Other) j = i + 1;
            if (cls[j] == QwenCharClass::Other) {
                j = run(j, QwenCharClass::Other);
                while (j < n && isNewline(t[j])) ++j;
                end = j;
            }
        }
        if (!end) {
            // Only whitespace is left; ws: the end of its run.
            const size_t ws = run(i, QwenCharClass::Space);
            // \s*[\r\n]+ : up to the last line break of the run.
            for (size_t j = ws; j > i; --j) {
                if (isNewline(t[j - 1])) {
                    end = j;
                    break;
                }
            }
            // \s+(?!\S) : the run, less its last character when text follows it.
            if (!end) end = ws == n ? ws : (ws - i >= 2 ? ws - 1 : ws);  // else \s+
        }
        out.emplace_back(i, end);
        i = end;
    }
    return out;
}

}  // namespace hs
