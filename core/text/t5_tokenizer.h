#pragma once
// The tokenizer of FLUX.1's second text encoder (T5-XXL v1.1, tokenizer_2/spiece.model), matching
// transformers' T5TokenizerFast as diffusers' FluxPipeline calls it:
//   tokenizer_2(prompt, padding="max_length", max_length=N, truncation=True)
// with N = max_sequence_length (512 for FLUX.1-dev, 256 for schnell).
//
// SentencePiece does the work: the model's own normaliser (T5: nmt_nfkc, no lower-casing) and its
// Unigram segmentation, unknown characters as one fused unk id. On top of it, what the fast
// tokenizer (tokenizers' legacy T5 pipeline) does differently from SentencePiece itself:
//   - the special tokens (</s>, <pad>, <unk>, <extra_id_0>…) written in the prompt are their ids,
//     and the text between them is tokenized piece by piece, each with its own "▁" prefix;
//   - whitespace at the end of a piece of text is one "▁" token (id 3 in T5), which SentencePiece
//     drops ("a cat " -> ▁a ▁cat ▁ </s>; tokenizers issue #1250).
// Then </s> (T5's eos) is appended; there is no bos.
//
// No LibTorch, no Qt. Thread-safe and cheap to copy (the model is shared).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "text/clip_tokenizer.h"  // TokenizerError

namespace hs {

// Special tokens and sizes as tokenizer_config.json / special_tokens_map.json give them.
struct T5SpecialTokens {
    std::string eos = "</s>";
    std::string pad = "<pad>";
    std::string unk = "<unk>";
    // <extra_id_0> … <extra_id_{extraIds-1}>: T5's sentinel tokens, ids after the model's pieces
    // in reverse order (T5: <extra_id_0> = 32099, <extra_id_99> = 32000).
    int extraIds = 100;
    int modelMaxLength = 512;
    // Other tokens to split out of the text (tokenizer_config.json's additional_special_tokens;
    // T5 lists its extra ids there). Each must be a piece of the model or an extra id.
    std::vector<std::string> additional;
};

class T5Tokenizer {
public:
    // Loads <dir>/spiece.model, and <dir>/tokenizer_config.json and special_tokens_map.json when
    // present (eos/pad/unk tokens, extra_ids, model_max_length, additional_special_tokens; the
    // latter file wins, as in transformers). Throws TokenizerError naming the file: a missing
    // spiece.model, a file SentencePiece cannot load, a special token the model does not have.
    static T5Tokenizer fromFolder(const std::string& dir);

    // A serialized SentencePiece model (the bytes of a spiece.model). `source` names it in errors.
    static T5Tokenizer fromSerializedModel(const std::string& modelBytes,
                                           T5SpecialTokens specials = {},
                                           const std::string& source = "spiece.model");

    // The pieces of `text` without </s>: "▁"-prefixed SentencePiece pieces, special tokens as
    // written, an unknown run as its normalised text (its id is unkId()).
    // All encoding functions throw std::invalid_argument for invalid UTF-8 (naming the offset).
    std::vector<std::string> pieces(const std::string& text) const;
    // [ids..., eos], not truncated.
    std::vector<int> encode(const std::string& text) const;
    // [ids..., eos] cut to `maxLength` ids with eos kept last, then padded with the pad id to
    // `maxLength`: what the FluxPipeline passes to T5. `maxLength` >= 1, else
    // std::invalid_argument. A long prompt is tokenized only as far as it needs to be (see the
    // .cpp), so a megabyte-long prompt costs about as much as a short one.
    std::vector<int> encodePadded(const std::string& text, int maxLength) const;

    int eosId() const;
    int padId() const;
    int unkId() const;
    // The model's pieces plus the extra ids (T5: 32000 + 100): every id is below it.
    size_t vocabSize() const;
    int modelMaxLength() const;
    const T5SpecialTokens& specialTokens() const;
    // The id of a piece ("▁cat") or special token ("</s>", "<extra_id_0>"); nullopt when the
    // vocabulary has no such entry.
    std::optional<int> idOf(const std::string& piece) const;
    // The piece of `id` (empty when there is none).
    std::string pieceOf(int id) const;

private:
    struct Impl;
    explicit T5Tokenizer(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> m_impl;
};

}  // namespace hs
