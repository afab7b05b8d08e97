#pragma once
// Strict UTF-8 decoding and encoding (RFC 3629): no overlong forms, no surrogates, nothing past
// U+10FFFF. Torch-free.
#include <string>
#include <string_view>

namespace hs {

// Decodes `text`; throws std::invalid_argument naming the byte offset of the first invalid
// sequence ("invalid UTF-8 at byte offset 7: unexpected continuation byte 0x80").
std::u32string decodeUtf8(std::string_view text);

void appendUtf8(std::string& out, char32_t cp);
std::string encodeUtf8(std::u32string_view text);

}  // namespace hs
