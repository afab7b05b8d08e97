#pragma once
// Token ids against the embedding table they index, checked where a pipeline pairs a tokenizer
// with its text encoder (load time) and again just before each lookup (run time). An id past
// the table is an out-of-range index: on CUDA a device-side assert that kills the context, on
// the CPU an error deep inside LibTorch, after the weights have been loaded and maybe a run
// started.
//
// Per family (the encoder's table, what limits the length):
//   CLIP   token_embedding has vocab_size rows; position_embedding has max_position_embeddings
//          rows, and the tokenizer pads every prompt to model_max_length: checked at load
//          (denoising/clip_tokenizers.cpp).
//   T5     shared / embed_tokens has vocab_size rows; relative position buckets have no table,
//          so no length limit. T5 ids are dense (pieces, then <extra_id_N>): the count is the
//          highest id + 1 (flux_strategy, anima_strategy check it).
//   Qwen2.5-VL, Qwen3   embed_tokens has vocab_size rows; RoPE has no table, so no length
//          limit (the pipelines cut prompts themselves). Ids come from vocab.json or
//          tokenizer.json and from added tokens, which may leave gaps: the highest id counts.
// No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "models/roles.h"

namespace hs {

class QwenTokenizer;

// The highest id in a tokenizer folder's vocabulary file: vocab.json when it is there, else
// tokenizer.json's model.vocab and added_tokens. `file` is the file it came from; highest is -1
// when the folder has neither. Reads at most kMaxTokenizerBytes (FileError past it).
struct VocabularyIds {
    int64_t highest = -1;
    std::string file;
};
VocabularyIds highestVocabularyId(const std::string& dir);

// Throws PipelineError "<file> has ids up to H but <encoderSlot>'s embedding table has R rows
// (vocab_size)" when ids.highest >= rows (rows < 0: nothing to check).
void checkIdsFitEmbedding(const VocabularyIds& ids, int64_t rows, const std::string& encoderSlot);

// Load time: throws PipelineError "<where>: the <tokenizer> (<dir>) has N ids but <encoderSlot>
// embeds only R (vocab_size): they are not a pair" when the tokenizer's `ids` outnumber the
// encoder's `rows` (rows <= 0: not known, nothing to check).
void checkTokenizerSize(const std::string& where, const std::string& tokenizer,
                        const std::string& dir, size_t ids, int64_t rows,
                        const std::string& encoderSlot);

// A Qwen tokenizer read from `dir` (vocabulary and added tokens) against `encoder`.
void checkQwenTokenizerFits(const QwenTokenizer& tokenizer, const std::string& dir,
                            TextEncoderComponent* encoder, const std::string& encoderSlot);

// Run time, before the lookup: every id in [0, rows) (rows < 0: not checked). Throws
// InputError "text_encoder: token id 5000 (position 3) is outside its embedding table of 1000
// rows". O(n) on the host, before the ids become a tensor.
void checkTokenIds(const std::vector<int>& ids, int64_t rows, const std::string& encoderSlot);
void checkTokenIds(const std::vector<int64_t>& ids, int64_t rows, const std::string& encoderSlot);

}  // namespace hs
