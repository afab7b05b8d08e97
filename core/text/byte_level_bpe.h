#pragma once
// Byte-level BPE without word-end markers, as GPT-2 / Qwen2 use it (transformers'
// GPT2Tokenizer.bpe, tokenizers' BPE model): a pre-token's UTF-8 bytes become bytes_to_unicode()
// symbols and the ranked merges are applied, lowest rank first, until none applies. Symbols are
// vocabulary ids throughout, so a merged word is its ids. Torch-free, thread-safe after
// construction.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hs {

class ByteLevelBpe {
public:
    // `vocab`: byte-level token -> id; `merges` in rank order (rank = index). `source` names the
    // files in errors. Throws TokenizerError when a byte symbol is missing from the vocabulary
    // (naming the byte) or a merge's parts or result are not in it (naming the merge and rank).
    // `ignoreMerges`: a pre-token that is a whole vocabulary entry is that entry (tokenizers'
    // BPE "ignore_merges", false for Qwen2).
    ByteLevelBpe(const std::unordered_map<std::string, int>& vocab,
                 const std::vector<std::pair<std::string, std::string>>& merges,
                 const std::string& source, bool ignoreMerges = false);

    // Appends the ids of one pre-token (its UTF-8 bytes). O(n log n) in its length.
    void encode(std::string_view bytes, std::vector<int>& out) const;

    size_t mergeCount() const { return m_merges.size(); }

private:
    struct Merge {
        int rank;
        int merged;
    };
    const Merge* find(int a, int b) const;

    const std::unordered_map<std::string, int>* m_vocab;  // for ignoreMerges only
    int m_byteId[256];
    std::unordered_map<uint64_t, Merge> m_merges;
    bool m_ignoreMerges;
};

// Appends the byte-level symbols (bytes_to_unicode(), UTF-8) of `bytes` to `out`.
void appendByteLevelSymbols(std::string_view bytes, std::string& out);

// The bytes that a byte-level token stands for (the inverse of bytes_to_unicode()); false when a
// character of `token` is not one of the 256 byte symbols.
bool byteLevelToBytes(std::string_view token, std::string& out);

}  // namespace hs
