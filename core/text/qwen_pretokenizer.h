#pragma once
// The Qwen2 pre-tokenizer: transformers' Qwen2Tokenizer PRETOKENIZE_REGEX (the Split step of
// Qwen2TokenizerFast's tokenizer.json)
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|
//   \s*[\r\n]+|\s+(?!\S)|\s+
// evaluated by hand over code points (leftmost alternative wins, greedy with backtracking).
// Unlike GPT-2's, a number is one digit per piece. Torch-free.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace hs {

// The regex's character classes: \p{L}, \p{N}, \s (Unicode White_Space), and the rest.
enum class QwenCharClass { Letter, Number, Space, Other };
QwenCharClass qwenCharClass(char32_t cp);

// The pieces of `text` as [begin, end) index pairs; together they cover all of it, in order.
// Linear in the text's length.
std::vector<std::pair<size_t, size_t>> qwenPretokenize(const std::u32string& text);

}  // namespace hs
