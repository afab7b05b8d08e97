#pragma once
// 8-bit images: reading and writing PNG through libpng, and the PNG's text chunks (tEXt, zTXt,
// iTXt: where ComfyUI keeps its "prompt" and "workflow" and A1111/Forge their "parameters"). A
// plain value type with no LibTorch, so the widgets library can use it too; io/image_tensor.h
// converts tensors to and from it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;             // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    std::vector<uint8_t> pixels;  // row-major, channels interleaved: [height][width][channels]

    bool empty() const { return width == 0 || height == 0; }
    uint8_t* at(int x, int y) { return pixels.data() + (size_t(y) * width + x) * channels; }
    const uint8_t* at(int x, int y) const {
        return pixels.data() + (size_t(y) * width + x) * channels;
    }
};

// Larger images are refused before decoding: a 100-byte PNG can claim 60000 x 60000 pixels and
// make the decoder allocate gigabytes.
constexpr int64_t kMaxImagePixels = int64_t(1) << 28;  // 16384 x 16384

// Reads a PNG file (PNG only: other formats are refused by their signature). `channels` 0 keeps
// the file's own count, with a palette expanded to RGB and a tRNS chunk to an alpha channel;
// 1-4 converts (grey = (77 R + 150 G + 29 B) >> 8, an added alpha is 255). 16-bit samples are
// reduced to their high 8 bits; Adam7-interlaced files are read too. Text and other metadata
// chunks are skipped. Throws FileError naming the file and what is wrong (libpng's message for a
// damaged file).
Image readImage(const std::string& path, int channels = 0);
// The same for bytes in memory; `name` is used in messages.
Image decodeImage(const uint8_t* data, size_t size, int channels = 0,
                  const std::string& name = "<memory>");

// One text chunk. Keywords are Latin-1 in every chunk type and tEXt/zTXt text is Latin-1: both
// come back converted to UTF-8; iTXt text is returned as stored (UTF-8 by the format, not
// checked).
struct PngText {
    enum class Chunk { Auto, tEXt, zTXt, iTXt };
    std::string keyword;  // UTF-8
    std::string text;     // UTF-8
    // Read: the chunk it came from (iTXt whether compressed or not). Write: Auto stores tEXt when
    // the text is Latin-1 without C1 controls (what ComfyUI's loader reads), else uncompressed
    // iTXt; tEXt and zTXt need Latin-1 text; iTXt is compressed from 1 KiB of text up.
    Chunk chunk = Chunk::Auto;
};

// Caps on reading text chunks. A zTXt or iTXt chunk can expand 1000-fold, so a 100 KB file could
// otherwise make the reader hold 100 MB per chunk.
constexpr size_t kMaxPngTextChunkBytes = size_t(8) << 20;  // one chunk, as stored or decompressed
constexpr size_t kMaxPngTextBytes = size_t(16) << 20;      // all keywords and texts together
constexpr int kMaxPngTextChunks = 64;

// The text chunks of a PNG file, in file order (those before and after the image data). A file
// over a cap is refused, not cut: FileError naming the cap. So is a text chunk libpng cannot read
// (bad CRC, damaged compressed data, bad keyword): FileError naming the chunk type and libpng's
// reason. The pixels are decompressed (the chunks after them cannot be reached otherwise) but
// held one row at a time; the image size limits of readImage apply.
std::vector<PngText> readPngText(const std::string& path);
std::vector<PngText> decodePngText(const uint8_t* data, size_t size,
                                   const std::string& name = "<memory>");

// PNG bytes of `img` (8-bit, not interlaced), with `text` chunks before the image data. Throws
// std::invalid_argument for an inconsistent Image, or text that cannot be stored or would not read
// back: a keyword that is not 1-79 printable Latin-1 characters without leading, trailing or
// double spaces; text that is not UTF-8, holds a NUL, or is not Latin-1 where the chunk type needs
// it; more than the caps above.
std::vector<uint8_t> encodePng(const Image& img);
std::vector<uint8_t> encodePng(const Image& img, const std::vector<PngText>& text);
// Writes a PNG atomically (temporary file + rename): a crash never leaves half an image.
// Throws FileError.
void writePng(const std::string& path, const Image& img);
void writePng(const std::string& path, const Image& img, const std::vector<PngText>& text);

}  // namespace hs
