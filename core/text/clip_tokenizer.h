#pragma once
// The CLIP tokenizer of the SD 1.x / SDXL / SD3 / FLUX text encoders, matching transformers'
// (slow) CLIPTokenizer on its ftfy path: special-token split, ftfy cleanup, whitespace collapse,
// lower case, the CLIP pre-tokenizer regex, byte-level BPE with "</w>" word ends, bos/eos,
// truncation keeping eos last, padding. Pure C++ (no LibTorch), thread-safe, cheap to copy.
//
// Every byte has a vocabulary entry (bytes_to_unicode), so any UTF-8 prompt tokenizes even with
// a tiny vocabulary of the 512 byte symbols plus a few merges and the special tokens.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hs {

// A tokenizer folder or vocabulary that cannot be used; names the file or token.
class TokenizerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ClipSpecialTokens {
    std::string bos = "<|startoftext|>";
    std::string eos = "<|endoftext|>";
    std::string pad = "<|endoftext|>";  // SD 2.x / SDXL's second tokenizer use "!"
    std::string unk = "<|endoftext|>";
};

class ClipTokenizer {
public:
    // Loads vocab.json and merges.txt, and tokenizer_config.json / special_tokens_map.json when
    // present (bos/eos/pad/unk tokens, model_max_length; the latter file wins, as in
    // transformers). Throws TokenizerError naming the file.
    static ClipTokenizer fromFolder(const std::string& dir);

    // merges in rank order. Throws TokenizerError when a special token is not in `vocab`.
    ClipTokenizer(std::unordered_map<std::string, int> vocab,
                  const std::vector<std::pair<std::string, std::string>>& merges,
                  ClipSpecialTokens specials = {}, int modelMaxLength = 77);

    // Byte-level BPE pieces of `text` (bytes_to_unicode alphabet, "</w>" word ends), without
    // bos/eos; special tokens found in the text are pieces of their own.
    // All encoding functions throw std::invalid_argument for invalid UTF-8 (naming the offset).
    std::vector<std::string> pieces(const std::string& text) const;
    // [bos, ids..., eos], not truncated.
    std::vector<int> encode(const std::string& text) const;
    // [bos, ids..., eos] cut to `maxLength` with eos kept last, then padded with the pad id to
    // `maxLength` (0: model_max_length). Stops tokenizing once it has enough ids, so a
    // megabyte-long prompt costs little.
    std::vector<int> encodePadded(const std::string& text, int maxLength = 0) const;
    // The ids of `text` without bos/eos, at most `maxTokens` of them.
    std::vector<int> tokenIds(const std::string& text, size_t maxTokens = SIZE_MAX) const;

    int bosId() const;
    int eosId() const;
    int padId() const;
    int unkId() const;
    int modelMaxLength() const;
    size_t vocabSize() const;
    const ClipSpecialTokens& specialTokens() const;
    // The same vocabulary with other special tokens (SD 2.x's and SDXL's second tokenizer pad
    // with "!"). Throws TokenizerError when one is not in the vocabulary.
    ClipTokenizer withSpecialTokens(ClipSpecialTokens specials) const;
    std::optional<int> idOf(const std::string& token) const;
    // The vocabulary entry of `id` (empty when there is none).
    std::string tokenOf(int id) const;

private:
    struct Impl;
    std::shared_ptr<const Impl> m_impl;
};

}  // namespace hs
