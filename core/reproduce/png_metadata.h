#pragma once
// The text chunks an image carries about how it was made: ComfyUI's "prompt" (API graph) and
// "workflow" (UI graph), A1111/Forge's "parameters" (infotext). PNG only; a JPEG or WebP file is
// refused by name. Bounded: the chunk stream is walked header by header first, so a 100 MB
// chunk, a cut-short file or a million chunks is refused before anything is read into memory.
#include <optional>
#include <string>

namespace hs {

struct ImageMetadata {
    std::optional<std::string> prompt;      // ComfyUI API graph (JSON)
    std::optional<std::string> workflow;    // ComfyUI UI graph (JSON)
    std::optional<std::string> parameters;  // A1111 / Forge infotext
};

// Throws FileError naming the file: not a PNG (JPEG and WebP named as such), cut short, a text
// chunk over the cap, a chunk libpng cannot read, or text that is not valid UTF-8.
ImageMetadata readImageMetadata(const std::string& path);

// The byte offset of the first invalid UTF-8 sequence in `s` (overlong forms, surrogates and
// code points past U+10FFFF are invalid), or npos when it is valid.
size_t firstInvalidUtf8(const std::string& s);

}  // namespace hs
