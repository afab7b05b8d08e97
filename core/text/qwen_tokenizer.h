#pragma once
// The Qwen2 byte-level BPE tokenizer used by Qwen2 / Qwen2.5-VL (Qwen-Image's text encoder) and
// Qwen3 (Anima's text encoder), matching transformers' Qwen2Tokenizer / Qwen2TokenizerFast:
//   - added tokens (<|endoftext|>, <|im_start|>, ...) are found in the raw text first, leftmost
//     then longest, and are never split;
//   - the text between them is NFC-normalised (no lower-casing, no cleanup), split by the Qwen2
//     pre-tokenizer regex (qwen_pretokenizer.h) and byte-level BPE encoded (byte_level_bpe.h);
//   - no bos/eos is added.
// Pure C++ (no LibTorch, no Qt), thread-safe, cheap to copy.
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/clip_tokenizer.h"  // TokenizerError

namespace hs {

struct QwenAddedToken {
    std::string content;
    int id = 0;
    bool special = true;
};

enum class PaddingSide { Right, Left };

// encodeBatchLongest's result: rows of equal length `length`.
struct QwenBatch {
    std::vector<std::vector<int>> ids;
    std::vector<std::vector<int>> attentionMask;  // 1 for a token, 0 for padding
    int length = 0;
};

class QwenTokenizer {
public:
    // Loads a tokenizer folder: vocab.json + merges.txt when both are there (what
    // Qwen2Tokenizer reads), else tokenizer.json (model.vocab, model.merges as "a b" or
    // ["a", "b"], added_tokens). Added tokens also come from tokenizer_config.json's
    // "added_tokens_decoder" and added_tokens.json; tokenizer_config.json (then
    // special_tokens_map.json) give pad_token (default <|endoftext|>), model_max_length (default
    // 32768) and padding_side. Throws TokenizerError naming the missing or broken file, key or
    // token.
    static QwenTokenizer fromFolder(const std::string& dir);

    // `vocab`: byte-level token -> id; `merges` in rank order; `added` found in text first.
    // `source` names the origin in errors. Throws TokenizerError (see ByteLevelBpe), also when
    // `padToken` is neither in the vocabulary nor an added token.
    QwenTokenizer(std::unordered_map<std::string, int> vocab,
                  const std::vector<std::pair<std::string, std::string>>& merges,
                  std::vector<QwenAddedToken> added, std::string padToken = "<|endoftext|>",
                  int modelMaxLength = 32768, const std::string& source = "vocabulary",
                  bool ignoreMerges = false);

    // The ids of `text`, no bos/eos. Throws std::invalid_argument for invalid UTF-8 (naming the
    // byte offset). Linear in the text's length up to the BPE of very long words (n log n).
    std::vector<int> encode(const std::string& text) const;
    // The same, stopping once `maxTokens` ids are there (truncation without the full cost).
    std::vector<int> encode(const std::string& text, size_t maxTokens) const;
    // The byte-level token strings of `text` (added tokens as written).
    std::vector<std::string> pieces(const std::string& text) const;

    // Ids back to text: byte-level tokens to their bytes, added tokens as written, then UTF-8
    // with every invalid sequence replaced by U+FFFD (errors="replace"). Throws TokenizerError
    // for an id that is neither in the vocabulary nor an added token.
    std::string decode(const std::vector<int>& ids) const;

    // tokenizer(texts, padding="longest", max_length=maxLength, truncation=True): each text's
    // ids cut to `maxLength` (0: modelMaxLength()), then padded with padId() to the longest row;
    // mask 1 on tokens. Padding goes to `side` (paddingSide() is what the folder's
    // tokenizer_config.json asks for). All-empty texts give rows of length 0.
    QwenBatch encodeBatchLongest(const std::vector<std::string>& texts, int maxLength = 0,
                                 PaddingSide side = PaddingSide::Right) const;

    // Vocabulary entries plus added tokens not in it (len(tokenizer): 151646 for Qwen2).
    size_t vocabSize() const;
    int padId() const;
    int modelMaxLength() const;
    PaddingSide paddingSide() const;
    const std::vector<QwenAddedToken>& addedTokens() const;
    std::optional<int> idOf(const std::string& token) const;
    // The token of `id` (byte-level form, or an added token's content); empty when none.
    std::string tokenOf(int id) const;

private:
    void setPaddingSide(PaddingSide side);  // for fromFolder, before the tokenizer is shared
    struct Impl;
    std::shared_ptr<Impl> m_impl;
};

// Bytes to UTF-8, each maximal invalid subsequence replaced by U+FFFD (as Python's
// bytes.decode("utf-8", errors="replace") and Rust's String::from_utf8_lossy do).
std::string utf8Lossy(const std::string& bytes);

}  // namespace hs
