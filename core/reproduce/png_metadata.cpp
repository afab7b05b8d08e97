#include "reproduce/png_metadata.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "io/image_io.h"
#include "io/platform_file.h"
#include "io/safetensors_header.h"

namespace hs {

namespace {

// A PNG of a few megapixels has a few hundred chunks; a file of 8-byte chunks is not an image.
constexpr uint64_t kMaxPngChunks = uint64_t(1) << 20;

struct OpenFile {
    platform::NativeFile f = platform::kNoFile;
    ~OpenFile() {
        if (f != platform::kNoFile) platform::closeFile(f);
    }
};

uint32_t bigEndian32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

bool isTextChunk(const uint8_t* type) {
    return std::memcmp(type, "tEXt", 4) == 0 || std::memcmp(type, "zTXt", 4) == 0 ||
           std::memcmp(type, "iTXt", 4) == 0;
}

std::string megabytes(uint64_t n) {
    return std::to_string((n + (1u << 20) - 1) >> 20) + " MB";
}

// Names the format of a file that is not a PNG, by its first bytes.
std::string notPngMessage(const uint8_t* head, int64_t n) {
    if (n >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF)
        return "a JPEG image: reading how an image was made from JPEG metadata is not supported "
               "(only PNG text chunks are read); use the PNG the tool saved";
    if (n >= 12 && std::memcmp(head, "RIFF", 4) == 0 && std::memcmp(head + 8, "WEBP", 4) == 0)
        return "a WebP image: reading how an image was made from WebP metadata is not supported "
               "(only PNG text chunks are read); use the PNG the tool saved";
    return "not a PNG image (no PNG signature)";
}

// Walks the chunk headers with explicit bounds, reading 8 bytes per chunk and nothing else.
void checkChunkStream(const std::string& path) {
    std::string error;
    OpenFile file;
    file.f = platform::openForRead(path, error);
    if (file.f == platform::kNoFile) throw FileError(path, "cannot open: " + error);
    platform::FileStatus st;
    if (!platform::fileStatus(file.f, st, error)) throw FileError(path, "cannot stat: " + error);
    if (!st.regular) throw FileError(path, st.kind + ", not an image file");
    platform::makeBlocking(file.f);
    uint8_t head[12] = {};
    const int64_t n = platform::readAt(file.f, head, sizeof head, 0, error);
    if (n < 0) throw FileError(path, "cannot read: " + error);
    if (n == 0) throw FileError(path, "empty file, not an image");
    static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (n < 8 || std::memcmp(head, kSignature, 8) != 0)
        throw FileError(path, notPngMessage(head, n));
    uint64_t pos = 8;
    for (uint64_t count = 0;; ++count) {
        if (count >= kMaxPngChunks)
            throw FileError(path, "more than " + std::to_string(kMaxPngChunks) +
                                      " chunks: not an image this reader takes");
        uint8_t h[8];
        const int64_t got = platform::readAt(file.f, h, sizeof h, pos, error);
        if (got < 0) throw FileError(path, "cannot read: " + error);
        if (got < int64_t(sizeof h))
            throw FileError(
                path, "the file is cut short at byte " + std::to_string(pos) + " (no IEND chunk)");
        const uint32_t length = bigEndian32(h);
        const std::string type(reinterpret_cast<const char*>(h + 4), 4);
        if (length > 0x7FFFFFFFu)
            throw FileError(
                path, "damaged chunk at byte " + std::to_string(pos) + " (length over 2^31 - 1)");
        if (isTextChunk(h + 4) && length > kMaxPngTextChunkBytes)
            throw FileError(path, "a text chunk (" + type + ") of " + megabytes(length) +
                                      ", over the cap of " + megabytes(kMaxPngTextChunkBytes) +
                                      " on one text chunk");
        const uint64_t end = pos + 12 + length;  // length, type, data, CRC
        if (end > st.size)
            throw FileError(path, "the file is cut short: chunk " + type + " at byte " +
                                      std::to_string(pos) + " needs " + std::to_string(end - pos) +
                                      " bytes, " + std::to_string(st.size - pos) + " remain");
        if (type == "IEND") return;
        pos = end;
    }
}

}  // namespace

size_t firstInvalidUtf8(const std::string& s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const size_t n = s.size();
    for (size_t i = 0; i < n;) {
        const unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int len = 0;
        unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;  // overlong
            if (c == 0xED) hi = 0x9F;  // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;  // overlong
            if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
        } else {
            return i;
        }
        if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
        for (int k = 2; k < len; ++k)
            if ((p[i + k] & 0xC0) != 0x80) return i;
        i += len;
    }
    return std::string::npos;
}

ImageMetadata readImageMetadata(const std::string& path) {
    checkChunkStream(path);
    ImageMetadata m;
    for (PngText& t : readPngText(path)) {
        std::optional<std::string>* slot = t.keyword == "prompt"       ? &m.prompt
                                           : t.keyword == "workflow"   ? &m.workflow
                                           : t.keyword == "parameters" ? &m.parameters
                                                                       : nullptr;
        if (!slot) continue;  // a later chunk of a keyword replaces an earlier one, as in PIL
        // tEXt and zTXt are Latin-1, converted on reading; iTXt is UTF-8 by the format but
        // not checked by libpng.
        const size_t bad = firstInvalidUtf8(t.text);
        if (bad != std::string::npos)
            throw FileError(path, "the '" + t.keyword + "' text chunk is not valid UTF-8 (byte " +
                                      std::to_string(bad) + " of its text)");
        *slot = std::move(t.text);
    }
    return m;
}

}  // namespace hs
