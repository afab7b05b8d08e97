#include "text/unicode.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "text/unicode_tables.h"

namespace hs {

namespace ut = unicode_tables;

namespace {

bool inRanges(const ut::Range* r, size_t n, char32_t cp) {
    auto it =
        std::upper_bound(r, r + n, cp, [](char32_t c, const ut::Range& x) { return c < x.first; });
    return it != r && cp <= (it - 1)->last;
}

bool isCased(char32_t cp) {
    return inRanges(ut::kCased, ut::kCasedCount, cp);
}
bool isCaseIgnorable(char32_t cp) {
    return inRanges(ut::kCaseIgnorable, ut::kCaseIgnorableCount, cp);
}

char32_t lowerOne(char32_t cp) {
    if (cp < 0x80) return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    const ut::LowerRun* r = ut::kLowerRuns;
    auto it = std::upper_bound(r, r + ut::kLowerRunCount, cp,
                               [](char32_t c, const ut::LowerRun& x) { return c < x.first; });
    if (it == r) return cp;
    const ut::LowerRun& run = *(it - 1);
    if (cp > run.last || (cp - run.first) % run.stride != 0) return cp;
    return static_cast<char32_t>(static_cast<int64_t>(cp) + run.delta);
}

// CPython's handle_capital_sigma: final form when preceded by a cased letter and not followed
// by one (case-ignorable characters skipped on both sides).
bool finalSigma(const std::u32string& t, size_t i) {
    size_t j = i;
    while (j > 0 && isCaseIgnorable(t[j - 1])) --j;
    if (j == 0 || !isCased(t[j - 1])) return false;
    size_t k = i + 1;
    while (k < t.size() && isCaseIgnorable(t[k])) ++k;
    return k == t.size() || !isCased(t[k]);
}

uint8_t cccOf(char32_t cp) {
    if (cp < 0x300) return 0;
    const ut::CccRange* r = ut::kCcc;
    auto it = std::upper_bound(r, r + ut::kCccCount, cp,
                               [](char32_t c, const ut::CccRange& x) { return c < x.first; });
    return (it != r && cp <= (it - 1)->last) ? (it - 1)->ccc : 0;
}

const ut::Decomposition* decompositionOf(char32_t cp) {
    const ut::Decomposition* d = ut::kDecompositions;
    auto it = std::lower_bound(d, d + ut::kDecompositionCount, cp,
                               [](const ut::Decomposition& x, char32_t c) { return x.cp < c; });
    return (it != d + ut::kDecompositionCount && it->cp == cp) ? it : nullptr;
}

// Hangul syllable arithmetic (Unicode 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

void decompose(char32_t cp, std::u32string& out) {
    if (cp >= kSBase && cp < kSBase + kSCount) {
        const char32_t s = cp - kSBase;
        out.push_back(kLBase + s / kNCount);
        out.push_back(kVBase + (s % kNCount) / kTCount);
        if (s % kTCount) out.push_back(kTBase + s % kTCount);
        return;
    }
    if (cp >= 0xC0) {
        if (const ut::Decomposition* d = decompositionOf(cp)) {
            decompose(d->first, out);
            if (d->second) decompose(d->second, out);
            return;
        }
    }
    out.push_back(cp);
}

const std::unordered_map<uint64_t, char32_t>& compositions() {
    static const std::unordered_map<uint64_t, char32_t> map = [] {
        std::unordered_map<uint64_t, char32_t> m;
        for (size_t i = 0; i < ut::kDecompositionCount; ++i) {
            const auto& d = ut::kDecompositions[i];
            if (d.compose) m.emplace(uint64_t(d.first) << 21 | d.second, d.cp);
        }
        return m;
    }();
    return map;
}

// Primary composite of (a, b), or 0.
char32_t compose(char32_t a, char32_t b) {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
        b < kTBase + kTCount)
        return a + (b - kTBase);
    const auto& m = compositions();
    auto it = m.find(uint64_t(a) << 21 | b);
    return it == m.end() ? 0 : it->second;
}

}  // namespace

ClipCharClass clipCharClass(char32_t cp) {
    const uint32_t* r = ut::kClassRuns;
    const uint32_t key = (static_cast<uint32_t>(cp) << 2) | 3u;
    auto it = std::upper_bound(r, r + ut::kClassRunCount, key);
    if (it == r) return ClipCharClass::Skip;
    return static_cast<ClipCharClass>(*(it - 1) & 3u);
}

std::u32string pythonLower(const std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char32_t cp = text[i];
        if (cp == 0x130) {
            out.push_back(U'i');
            out.push_back(0x307);
        } else if (cp == 0x3A3) {
            out.push_back(finalSigma(text, i) ? 0x3C2 : 0x3C3);
        } else {
            out.push_back(lowerOne(cp));
        }
    }
    return out;
}

std::u32string nfc(const std::u32string& text) {
    // Quick check: below U+0300 nothing decomposes to something that could recompose
    // differently and nothing combines with a predecessor.
    if (std::all_of(text.begin(), text.end(), [](char32_t c) { return c < 0x300; })) return text;
    std::u32string d;
    d.reserve(text.size() + 8);
    for (char32_t cp : text) decompose(cp, d);
    // Canonical ordering: stable sort of each run of non-starters by combining class.
    for (size_t i = 0; i < d.size();) {
        if (cccOf(d[i]) == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < d.size() && cccOf(d[j]) != 0) ++j;
        std::stable_sort(d.begin() + i, d.begin() + j,
                         [](char32_t a, char32_t b) { return cccOf(a) < cccOf(b); });
        i = j;
    }
    // Canonical composition.
    std::u32string out;
    out.reserve(d.size());
    size_t starter = std::u32string::npos;  // index in `out` of the last starter
    int lastCcc = -1;                       // ccc of the last character appended after it
    for (char32_t cp : d) {
        const int ccc = cccOf(cp);
        if (starter != std::u32string::npos) {
            const bool blocked = lastCcc != -1 && (lastCcc == 0 || lastCcc >= ccc);
            if (!blocked) {
                if (char32_t c = compose(out[starter], cp)) {
                    out[starter] = c;
                    continue;
                }
            }
        }
        if (ccc == 0) {
            starter = out.size();
            lastCcc = -1;
        } else {
            lastCcc = ccc;
        }
        out.push_back(cp);
    }
    return out;
}

bool isCutSafeBefore(char32_t cp) {
    if (cp < 0x300) return true;  // ASCII and Latin-1: never combine with what precedes them
    if (cccOf(cp) != 0) return false;
    if ((cp >= kVBase && cp < kVBase + kVCount) || (cp > kTBase && cp < kTBase + kTCount))
        return false;                                // Hangul V and T jamo
    if (cp == 0x200C || cp == 0x200D) return false;  // ZWNJ, ZWJ
    if ((cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF)) return false;
    if (cp >= 0x180B && cp <= 0x180D) return false;           // Mongolian selectors
    static const std::unordered_set<char32_t> seconds = [] {  // ccc 0, yet composes: U+0B3E …
        std::unordered_set<char32_t> s;
        for (size_t i = 0; i < ut::kDecompositionCount; ++i)
            if (ut::kDecompositions[i].compose) s.insert(ut::kDecompositions[i].second);
        return s;
    }();
    return seconds.count(cp) == 0;
}

}  // namespace hs
