#pragma once
// Tokenizer files for the demo model in the real CLIP format (vocab.json, merges.txt,
// tokenizer_config.json, special_tokens_map.json), so the CLIP tokenizer code reads them like
// any checkpoint's. The vocabulary is the 512 byte-level base tokens, BPE merges learned from the
// grammar's words until each word is one token, and the two specials. Any other text still
// tokenizes, byte by byte.
#include <string>
#include <utility>
#include <vector>

namespace hs::demo {

struct BpeVocabulary {
    std::vector<std::string> tokens;  // in id order
    std::vector<std::pair<std::string, std::string>> merges;  // in rank order
};

// CLIP's reversible byte -> printable-unicode map (bytes_to_unicode), as UTF-8 strings.
const std::vector<std::string>& byteToUnicode();

BpeVocabulary learnBpe(const std::vector<std::string>& words);

// Writes the four files into `dir` (created if needed), each atomically.
void writeTokenizerFolder(const std::string& dir, const BpeVocabulary& v, int modelMaxLength);

}  // namespace hs::demo
