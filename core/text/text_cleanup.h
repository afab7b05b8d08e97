#pragma once
// The text cleanup of transformers' CLIPTokenizer on its ftfy path:
//     whitespace_clean(ftfy.fix_text(text)).lower()
// with ftfy 6.3's default configuration re-implemented in C++ (Torch-free). Where ftfy cannot
// be reproduced exactly, text_cleanup.cpp says what differs and why.
#include <functional>
#include <string>

namespace hs {

// ftfy.fix_text(text) with its defaults, line by line as ftfy does it. Throws
// std::invalid_argument for invalid UTF-8 (naming the byte offset).
std::u32string ftfyFixText(const std::u32string& text);
std::string ftfyFixText(const std::string& utf8);

// ftfy.fix_text's own segmentation made visible: calls `sink` with each fixed line (a segment
// ends after '\n' or at ftfy's max_decode_length) until it returns false. Lets the tokenizer
// stop once it has enough tokens; returns false when stopped early.
bool forEachFixedLine(const std::u32string& text,
                      const std::function<bool(std::u32string&&)>& sink);

// whitespace_clean(ftfy.fix_text(text)).lower(): runs of Python whitespace become one space,
// the ends are stripped, then str.lower().
std::string clipCleanText(const std::string& utf8);

// Windows-1252 as ftfy's "sloppy" codec reads it: bytes 0x80..0x9F to their Windows-1252
// characters; the five bytes Windows leaves undefined map to the C1 controls of the same value.
char32_t sloppyWindows1252(unsigned char byte);

}  // namespace hs
