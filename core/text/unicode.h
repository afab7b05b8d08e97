#pragma once
// The Unicode operations the CLIP tokenizer needs, reproducing the Python functions of the
// reference implementation (generated tables: unicode_tables.h). Torch-free.
#include <string>

namespace hs {

// Classes of the CLIP pre-tokenizer regex
//   <|startoftext|>|<|endoftext|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+
// as the `regex` module evaluates them with IGNORECASE.
enum class ClipCharClass {
    Skip,    // whitespace, or matched by no alternative (U+0345): never part of a piece
    Letter,  // [\p{L}]
    Number,  // [\p{N}]
    Other,   // [^\s\p{L}\p{N}]
};
ClipCharClass clipCharClass(char32_t cp);

// Python's str.lower(): full mappings (U+0130 -> "i\u0307") and the final-sigma rule.
std::u32string pythonLower(const std::u32string& text);

// Unicode normalization form C (canonical decomposition, canonical ordering, composition),
// as unicodedata.normalize("NFC", ...).
std::u32string nfc(const std::u32string& text);

// Whether a text can be cut just before `cp` without changing what NFC / NFKC make of the two
// halves: false for combining marks (non-zero combining class), the second half of a canonical
// composition (Hangul vowel and final jamo included), variation selectors and zero-width
// (non-)joiners. The T5 tokenizer cuts long runs of unknown characters only at such places.
bool isCutSafeBefore(char32_t cp);

}  // namespace hs
