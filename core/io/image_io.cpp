#include "io/image_io.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

// Debian's libstb.so holds the implementations: include the declarations only (elsewhere
// io/stb_implementation.cpp compiles them). vcpkg puts the headers at the include folder's top.
#if __has_include(<stb/stb_image.h>)
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#else
#include <stb_image.h>
#include <stb_image_write.h>
#endif

#include "io/atomic_file.h"
#include "io/bounded_read.h"
#include "io/safetensors_header.h"  // FileError

namespace hs {

namespace {

// The largest image file read: an uncompressed 4-channel BMP of kMaxImagePixels, plus headers.
constexpr uint64_t kMaxImageBytes = uint64_t(kMaxImagePixels) * 4 + (64ull << 20);

// stb keeps its failure reason in a static (thread-local only if libstb was built so): copy it
// at once.
std::string stbReason() {
    const char* r = stbi_failure_reason();
    return r ? r : "unknown reason";
}

void appendBytes(void* context, void* data, int size) {
    auto* out = static_cast<std::vector<uint8_t>*>(context);
    const auto* p = static_cast<const uint8_t*>(data);
    out->insert(out->end(), p, p + size);
}

}  // namespace

Image decodeImage(const uint8_t* data, size_t size, int channels, const std::string& name) {
    if (channels < 0 || channels > 4)
        throw FileError(name,
                        "channels must be 0 (as stored) or 1-4, got " + std::to_string(channels));
    if (size == 0) throw FileError(name, "empty file, not an image");
    if (size > size_t(INT_MAX)) throw FileError(name, "file too large for an image");
    // PNG only: Halfscope writes and reads PNGs, and stb's other decoders are an attack surface
    // it does not need (Debian's libstb reads past the buffer on a short 16-bit PPM).
    static const uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (size < sizeof kPngSignature || std::memcmp(data, kPngSignature, sizeof kPngSignature) != 0)
        throw FileError(name, "not a PNG image (no PNG signature)");
    int w = 0, h = 0, c = 0;
    if (!stbi_info_from_memory(data, int(size), &w, &h, &c))
        throw FileError(name, "not a readable image (" + stbReason() + ")");
    if (w <= 0 || h <= 0)
        throw FileError(
            name, "image has no pixels (" + std::to_string(w) + "x" + std::to_string(h) + ")");
    if (int64_t(w) * h > kMaxImagePixels)
        throw FileError(name, "image is " + std::to_string(w) + "x" + std::to_string(h) +
                                  ", larger than the limit of " + std::to_string(kMaxImagePixels) +
                                  " pixels");
    stbi_uc* px = stbi_load_from_memory(data, int(size), &w, &h, &c, channels);
    if (!px) throw FileError(name, "corrupt image (" + stbReason() + ")");
    Image img;
    img.width = w;
    img.height = h;
    img.channels = channels ? channels : c;
    img.pixels.assign(px, px + size_t(w) * h * img.channels);
    stbi_image_free(px);
    return img;
}

Image readImage(const std::string& path, int channels) {
    // A regular file (a FIFO or a device is refused before any read) of at most kMaxImageBytes.
    const std::string bytes = readBoundedFile(path, kMaxImageBytes, "image");
    return decodeImage(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), channels,
                       path);
}

std::vector<uint8_t> encodePng(const Image& img) {
    if (img.width <= 0 || img.height <= 0)
        throw std::invalid_argument("image has no pixels (" + std::to_string(img.width) + "x" +
                                    std::to_string(img.height) + ")");
    if (img.channels < 1 || img.channels > 4)
        throw std::invalid_argument("image has " + std::to_string(img.channels) +
                                    " channels; PNG takes 1-4");
    if (int64_t(img.width) * img.height > kMaxImagePixels)
        throw std::invalid_argument("image is larger than the pixel limit");
    const size_t need = size_t(img.width) * img.height * img.channels;
    if (img.pixels.size() != need)
        throw std::invalid_argument("image holds " + std::to_string(img.pixels.size()) +
                                    " bytes, width x height x channels needs " +
                                    std::to_string(need));
    std::vector<uint8_t> out;
    if (!stbi_write_png_to_func(appendBytes, &out, img.width, img.height, img.channels,
                                img.pixels.data(), img.width * img.channels))
        throw std::runtime_error("PNG encoding failed");
    return out;
}

void writePng(const std::string& path, const Image& img) {
    std::vector<uint8_t> png;
    try {
        png = encodePng(img);
    } catch (const std::exception& e) {
        throw FileError(path, e.what());
    }
    writeFileAtomically(path, png.data(), png.size());
}

}  // namespace hs
