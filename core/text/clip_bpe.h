#pragma once
// Byte-level BPE as in openai/CLIP's SimpleTokenizer.bpe and transformers' CLIPTokenizer.bpe:
// a pre-token's UTF-8 bytes become bytes_to_unicode() symbols, the last one carrying "</w>",
// and merges are applied lowest rank first, every non-overlapping occurrence of the chosen pair
// left to right, until no ranked pair remains. Torch-free.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hs {

// bytes_to_unicode(): the printable character (UTF-8) that stands for byte b.
const std::string& byteSymbol(uint8_t b);

class ClipBpe {
public:
    // merges in rank order (rank = index); a pair listed twice keeps its last rank, as a Python
    // dict built from the list does.
    explicit ClipBpe(const std::vector<std::pair<std::string, std::string>>& merges);

    // Symbols of one pre-token (its UTF-8 bytes, non-empty). Cached for short pre-tokens.
    // O(n log n), so a megabyte-long word does not stall. Thread-safe.
    std::vector<int> apply(std::string_view bytes) const;

    const std::string& symbol(int s) const { return m_symbols[s]; }
    size_t symbolCount() const { return m_symbols.size(); }

private:
    struct Merge {
        int rank;
        int merged;
    };
    int intern(const std::string& s);
    const Merge* find(int a, int b) const;
    std::vector<int> merge(std::string_view bytes) const;

    std::vector<std::string> m_symbols;
    std::unordered_map<std::string, int> m_index;
    int m_byte[256];
    int m_byteEnd[256];  // byte symbol + "</w>"
    std::unordered_map<uint64_t, Merge> m_merges;

    mutable std::mutex m_cacheMutex;
    mutable std::unordered_map<std::string, std::vector<int>> m_cache;
};

}  // namespace hs
