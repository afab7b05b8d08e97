// libFuzzer target: the PNG reader (decodeImage and decodePngText over the system libpng, which
// is not instrumented; image_io.cpp's own code is). The first byte picks the channel count
// asked for (0 = the file's own, 1-4 = converted), the rest is the file. A refusal is a
// FileError. An accepted image must be non-empty, have its claimed size in pixels and, when
// small, survive a PNG round trip unchanged; accepted text must be within the caps and, when the
// writer takes it, read back the same. libpng checks every chunk's CRC, so most mutations stop
// there: tests/core/test_image_io.cpp (TruncatedAndCorruptPngs) flips bytes with the CRC made
// right.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "fuzz_util.h"
#include "io/image_io.h"
#include "io/safetensors_header.h"  // FileError

namespace {

void checkText(const uint8_t* data, size_t size) {
    std::vector<hs::PngText> text;
    try {
        text = hs::decodePngText(data, size, "fuzz.png");
    } catch (const hs::FileError&) {
        return;
    } catch (const std::exception& e) {
        hs::fuzz::escapedException(e);
        return;
    }
    check(text.size() <= size_t(hs::kMaxPngTextChunks));
    size_t total = 0;
    for (const auto& t : text) total += t.keyword.size() + t.text.size();
    check(total <= 2 * hs::kMaxPngTextBytes);  // Latin-1 grows to at most 2 bytes in UTF-8
    // Written again as the chunk types read: the same keywords and text come back. The writer
    // refuses what the format does not allow (libpng reads tEXt keywords unchecked, iTXt text
    // unchecked as UTF-8).
    std::vector<uint8_t> png;
    try {
        png = hs::encodePng(hs::Image{1, 1, 1, {0}}, text);
    } catch (const std::invalid_argument&) {
        return;
    }
    const auto back = hs::decodePngText(png.data(), png.size(), "text round trip");
    check(back.size() == text.size());
    for (size_t i = 0; i < text.size(); ++i)
        check(back[i].keyword == text[i].keyword && back[i].text == text[i].text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const int channels = data[0] % 5;
    checkText(data + 1, size - 1);
    hs::Image img;
    try {
        img = hs::decodeImage(data + 1, size - 1, channels, "fuzz.png");
    } catch (const hs::FileError&) {
        return 0;
    } catch (const std::exception& e) {
        hs::fuzz::escapedException(e);
        return 0;
    }
    check(img.width > 0 && img.height > 0 && img.channels >= 1 && img.channels <= 4);
    check(channels == 0 || img.channels == channels);
    check(int64_t(img.width) * img.height <= hs::kMaxImagePixels);
    check(img.pixels.size() == size_t(img.width) * size_t(img.height) * size_t(img.channels));
    if (int64_t(img.width) * img.height <= 4096) {
        const std::vector<uint8_t> png = hs::encodePng(img);
        const hs::Image back = hs::decodeImage(png.data(), png.size(), 0, "round trip");
        check(back.width == img.width && back.height == img.height &&
              back.channels == img.channels && back.pixels == img.pixels);
    }
    return 0;
}
