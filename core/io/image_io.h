#pragma once
// 8-bit images: reading (PNG, and whatever else stb_image decodes: JPEG, BMP, TGA, ...) and
// writing PNG. A plain value type with no LibTorch, so the widgets library can use it too;
// io/image_tensor.h converts tensors to and from it.
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

// Reads an image file. `channels` 0 keeps the file's own count; 1-4 converts. 16-bit PNGs are
// reduced to 8 bits. Throws FileError naming the file and what is wrong.
Image readImage(const std::string& path, int channels = 0);
// The same for bytes in memory; `name` is used in messages.
Image decodeImage(const uint8_t* data, size_t size, int channels = 0,
                  const std::string& name = "<memory>");

// PNG bytes of `img`. Throws std::invalid_argument for an inconsistent Image.
std::vector<uint8_t> encodePng(const Image& img);
// Writes a PNG atomically (temporary file + rename): a crash never leaves half an image.
// Throws FileError.
void writePng(const std::string& path, const Image& img);

}  // namespace hs
