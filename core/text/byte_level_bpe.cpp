#include "text/byte_level_bpe.h"

#include <cstdio>
#include <queue>

#include "text/clip_bpe.h"        // byteSymbol(): bytes_to_unicode()
#include "text/clip_tokenizer.h"  // TokenizerError
#include "text/utf8.h"

namespace hs {

namespace {

uint64_t pairKey(int a, int b) {
    return uint64_t(uint32_t(a)) << 32 | uint32_t(b);
}

std::string byteName(int b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", b);
    return buf;
}

// Code point (all below U+0144) -> byte, or -1.
struct ByteDecoder {
    int byteOf[0x200];
    ByteDecoder() {
        for (int& v : byteOf) v = -1;
        for (int b = 0; b < 256; ++b) {
            const std::u32string cp = decodeUtf8(byteSymbol(uint8_t(b)));
            byteOf[cp[0]] = b;
        }
    }
};

}  // namespace

void appendByteLevelSymbols(std::string_view bytes, std::string& out) {
    for (char c : bytes) out += byteSymbol(uint8_t(c));
}

bool byteLevelToBytes(std::string_view token, std::string& out) {
    static const ByteDecoder dec;
    const auto* s = reinterpret_cast<const unsigned char*>(token.data());
    for (size_t i = 0; i < token.size();) {
        // Byte symbols are U+0021..U+0143: one byte, or two with lead C2..C5.
        int cp = -1;
        if (s[i] < 0x80) {
            cp = s[i];
            i += 1;
        } else if (s[i] >= 0xC2 && s[i] <= 0xC5 && i + 1 < token.size() &&
                   (s[i + 1] & 0xC0) == 0x80) {
            cp = (s[i] & 0x1F) << 6 | (s[i + 1] & 0x3F);
            i += 2;
        }
        if (cp < 0 || cp >= 0x200 || dec.byteOf[cp] < 0) return false;
        out.push_back(char(dec.byteOf[cp]));
    }
    return true;
}

ByteLevelBpe::ByteLevelBpe(const std::unordered_map<std::string, int>& vocab,
                           const std::vector<std::pair<std::string, std::string>>& merges,
                           const std::string& source, bool ignoreMerges)
    : m_vocab(ignoreMerges ? &vocab : nullptr), m_ignoreMerges(ignoreMerges) {
    for (int b = 0; b < 256; ++b) {
        auto it = vocab.find(byteSymbol(uint8_t(b)));
        if (it == vocab.end())
            throw TokenizerError(source + ": the vocabulary has no entry for byte " + byteName(b) +
                                 " (byte-level symbol '" + byteSymbol(uint8_t(b)) +
                                 "'), so text containing it cannot be encoded");
        m_byteId[b] = it->second;
    }
    m_merges.reserve(merges.size() * 2);
    std::string joined;
    for (size_t r = 0; r < merges.size(); ++r) {
        // Named references, not a structured binding: C++17 lambdas cannot capture those
        // (clang refuses it).
        const std::string& a = merges[r].first;
        const std::string& b = merges[r].second;
        auto need = [&](const std::string& tok) {
            auto it = vocab.find(tok);
            if (it == vocab.end())
                throw TokenizerError(source + ": merge " + std::to_string(r) + " '" + a + " " + b +
                                     "' uses or makes '" + tok +
                                     "', which is not in the vocabulary");
            return it->second;
        };
        joined.assign(a).append(b);
        const int ia = need(a), ib = need(b), im = need(joined);
        // A pair listed twice keeps its last rank, as the reference's dict does.
        m_merges[pairKey(ia, ib)] = Merge{int(r), im};
    }
}

const ByteLevelBpe::Merge* ByteLevelBpe::find(int a, int b) const {
    auto it = m_merges.find(pairKey(a, b));
    return it == m_merges.end() ? nullptr : &it->second;
}

// The reference rescans the word for its lowest-ranked pair after every merge (quadratic in the
// word's length). Here the candidate pairs sit in a heap ordered by (rank, position): popping
// merges the leftmost occurrence of the lowest rank first, later occurrences of that rank follow
// left to right, and a pair made by a merge always ranks after the merge that made it, so this is
// the reference's "merge every occurrence of the best pair, left to right" pass. Stale entries
// are skipped by re-checking the pair.
void ByteLevelBpe::encode(std::string_view bytes, std::vector<int>& out) const {
    const int n = int(bytes.size());
    if (n == 0) return;
    if (n == 1) {
        out.push_back(m_byteId[uint8_t(bytes[0])]);
        return;
    }
    if (m_ignoreMerges) {
        std::string key;
        appendByteLevelSymbols(bytes, key);
        auto it = m_vocab->find(key);
        if (it != m_vocab->end()) {
            out.push_back(it->second);
            return;
        }
    }
    std::vector<int> sym(n), prev(n), next(n);
    std::vector<char> alive(n, 1);
    for (int i = 0; i < n; ++i) {
        sym[i] = m_byteId[uint8_t(bytes[i])];
        prev[i] = i - 1;
        next[i] = i + 1 < n ? i + 1 : -1;
    }
    using Entry = std::pair<int, int>;  // rank, position of the pair's left symbol
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    auto push = [&](int left) {
        if (left < 0 || next[left] < 0) return;
        if (const Merge* m = find(sym[left], sym[next[left]])) heap.emplace(m->rank, left);
    };
    for (int i = 0; i + 1 < n; ++i) push(i);
    while (!heap.empty()) {
        const auto [rank, p] = heap.top();
        heap.pop();
        if (!alive[p] || next[p] < 0) continue;
        const int q = next[p];
        const Merge* m = find(sym[p], sym[q]);
        if (!m || m->rank != rank) continue;
        sym[p] = m->merged;
        alive[q] = 0;
        next[p] = next[q];
        if (next[q] >= 0) prev[next[q]] = p;
        push(prev[p]);
        push(p);
    }
    for (int i = 0; i >= 0; i = next[i]) out.push_back(sym[i]);
}

}  // namespace hs
