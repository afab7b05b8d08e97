#include "text/clip_bpe.h"

#include <algorithm>
#include <array>
#include <queue>

#include "text/utf8.h"

namespace hs {

namespace {

constexpr size_t kCacheMaxKey = 64;          // bytes; longer pre-tokens are not cached
constexpr size_t kCacheMaxEntries = 200000;  // cleared when full

std::array<std::string, 256> makeByteSymbols() {
    // bytes_to_unicode(): printable Latin-1 bytes stand for themselves, the others are moved
    // to U+0100 onwards in byte order.
    std::array<std::string, 256> out;
    int n = 0;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        char32_t cp = printable ? char32_t(b) : char32_t(256 + n++);
        appendUtf8(out[b], cp);
    }
    return out;
}

}  // namespace

const std::string& byteSymbol(uint8_t b) {
    static const std::array<std::string, 256> symbols = makeByteSymbols();
    return symbols[b];
}

ClipBpe::ClipBpe(const std::vector<std::pair<std::string, std::string>>& merges) {
    for (int b = 0; b < 256; ++b) m_byte[b] = intern(byteSymbol(uint8_t(b)));
    for (int b = 0; b < 256; ++b) m_byteEnd[b] = intern(byteSymbol(uint8_t(b)) + "</w>");
    for (size_t r = 0; r < merges.size(); ++r) {
        const int a = intern(merges[r].first);
        const int b = intern(merges[r].second);
        const int m = intern(merges[r].first + merges[r].second);
        m_merges[uint64_t(a) << 32 | uint32_t(b)] = Merge{int(r), m};
    }
}

int ClipBpe::intern(const std::string& s) {
    auto it = m_index.find(s);
    if (it != m_index.end()) return it->second;
    m_symbols.push_back(s);
    return m_index.emplace(s, int(m_symbols.size() - 1)).first->second;
}

const ClipBpe::Merge* ClipBpe::find(int a, int b) const {
    auto it = m_merges.find(uint64_t(a) << 32 | uint32_t(b));
    return it == m_merges.end() ? nullptr : &it->second;
}

std::vector<int> ClipBpe::apply(std::string_view bytes) const {
    if (bytes.size() > kCacheMaxKey) return merge(bytes);
    const std::string key(bytes);
    {
        std::lock_guard<std::mutex> lock(m_cacheMutex);
        auto it = m_cache.find(key);
        if (it != m_cache.end()) return it->second;
    }
    std::vector<int> out = merge(bytes);
    std::lock_guard<std::mutex> lock(m_cacheMutex);
    if (m_cache.size() >= kCacheMaxEntries) m_cache.clear();
    m_cache.emplace(key, out);
    return out;
}

// The reference loops "find the lowest-ranked pair, merge all its occurrences" and rescans the
// word each time (quadratic). Here the pairs sit in a heap; all entries of the lowest rank are
// taken as one batch and applied left to right on the word as it was before the batch, which
// is exactly the reference's pass. Stale heap entries are skipped by re-checking the pair.
std::vector<int> ClipBpe::merge(std::string_view bytes) const {
    const int n = int(bytes.size());
    std::vector<int> sym(n), prev(n), next(n);
    std::vector<char> alive(n, 1);
    for (int i = 0; i < n; ++i) {
        const auto b = uint8_t(bytes[i]);
        sym[i] = i == n - 1 ? m_byteEnd[b] : m_byte[b];
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
    std::vector<int> batch, merged;
    while (!heap.empty()) {
        const int rank = heap.top().first;
        batch.clear();
        while (!heap.empty() && heap.top().first == rank) {
            batch.push_back(heap.top().second);
            heap.pop();
        }
        std::sort(batch.begin(), batch.end());
        batch.erase(std::unique(batch.begin(), batch.end()), batch.end());
        merged.clear();
        for (int p : batch) {
            if (!alive[p] || next[p] < 0) continue;
            const int q = next[p];
            const Merge* m = find(sym[p], sym[q]);
            if (!m || m->rank != rank) continue;
            sym[p] = m->merged;
            alive[q] = 0;
            next[p] = next[q];
            if (next[q] >= 0) prev[next[q]] = p;
            merged.push_back(p);
        }
        for (int p : merged) {
            push(prev[p]);
            push(p);
        }
    }
    std::vector<int> out;
    for (int i = 0; i >= 0; i = next[i]) out.push_back(sym[i]);
    return out;
}

}  // namespace hs
