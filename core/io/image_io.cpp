#include "io/image_io.h"

#include <png.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "io/atomic_file.h"
#include "io/bounded_read.h"
#include "io/safetensors_header.h"  // FileError

// The caps below need these parts of libpng (all in its default configuration).
#if !defined(PNG_SETJMP_SUPPORTED) || !defined(PNG_SET_USER_LIMITS_SUPPORTED) ||     \
    !defined(PNG_USER_MEM_SUPPORTED) || !defined(PNG_HANDLE_AS_UNKNOWN_SUPPORTED) || \
    !defined(PNG_IO_STATE_SUPPORTED) || !defined(PNG_READ_iTXt_SUPPORTED) ||         \
    !defined(PNG_WRITE_iTXt_SUPPORTED)
#error "libpng without setjmp, user limits, user memory, chunk handling, I/O state or iTXt"
#endif

namespace hs {

namespace {

// The largest file read: an 8-bit RGBA PNG at kMaxImagePixels stored without compression, plus
// room for metadata. Bytes are held in memory while decoding.
constexpr uint64_t kMaxImageBytes = uint64_t(kMaxImagePixels) * 4 + (64ull << 20);
// Widest and tallest image (png_set_user_limits; the pixel count is checked on its own): stb's
// limit, which this reader replaced. libpng's row buffers grow with the width.
constexpr png_uint_32 kMaxImageSide = png_uint_32(1) << 24;
// What libpng may hold at once outside row decoding: the text kept so far, one chunk being read
// and its decompressed copy, zlib's state and libpng's own structs. An allocation past it fails
// (so a text chunk is refused) before it is made.
constexpr size_t kMetadataBudget = kMaxPngTextBytes + 2 * kMaxPngTextChunkBytes + (2u << 20);

constexpr uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

bool isTextChunk(png_uint_32 chunk) {
    return chunk == 0x74455874u || chunk == 0x7A545874u || chunk == 0x69545874u;  // tEXt zTXt iTXt
}

// ---- Reading ----------------------------------------------------------------------------------

// Everything libpng's callbacks and the functions that call setjmp touch. Plain data only: a
// longjmp out of libpng skips destructors, so nothing between it and the setjmp may need one.
struct PngReader {
    const uint8_t* data = nullptr;
    size_t size = 0;
    size_t pos = 0;
    bool wantText = false;       // text chunks are read, and a problem in one is fatal
    bool rowPhase = false;       // allocations now are row buffers, outside kMetadataBudget
    size_t metadataBytes = 0;    // held by libpng from allocations outside the row phase
    bool refusedMemory = false;  // an allocation would have passed kMetadataBudget
    bool textFailed = false;     // `error` describes a text chunk, not the image
    png_uint_32 warningChunk = 0;
    char warning[160] = {};
    char error[320] = {};
    // IHDR (readHeader)
    png_uint_32 width = 0, height = 0;
    int bitDepth = 0, colorType = 0;
    bool hasTrns = false;
    size_t rowBytes = 0;
};

// libpng's allocations, each preceded by a header saying how large it was and whether it counts
// against kMetadataBudget.
union AllocHeader {
    struct {
        size_t size;
        bool counted;
    } h;
    std::max_align_t align;
};

png_voidp pngAlloc(png_structp png, png_alloc_size_t size) {
    auto* r = static_cast<PngReader*>(png_get_mem_ptr(png));
    const bool counted = !r->rowPhase;
    if (counted && size > kMetadataBudget - r->metadataBytes) {
        r->refusedMemory = true;
        return nullptr;
    }
    if (size > SIZE_MAX - sizeof(AllocHeader)) return nullptr;
    auto* h = static_cast<AllocHeader*>(std::malloc(sizeof(AllocHeader) + size));
    if (!h) return nullptr;
    h->h.size = size;
    h->h.counted = counted;
    if (counted) r->metadataBytes += size;
    return h + 1;
}

void pngFree(png_structp png, png_voidp p) {
    if (!p) return;
    AllocHeader* h = static_cast<AllocHeader*>(p) - 1;
    if (h->h.counted) static_cast<PngReader*>(png_get_mem_ptr(png))->metadataBytes -= h->h.size;
    std::free(h);
}

void readFromBuffer(png_structp png, png_bytep out, size_t n) {
    auto* r = static_cast<PngReader*>(png_get_io_ptr(png));
    if (n > r->size - r->pos) png_error(png, "the file is cut short");
    std::memcpy(out, r->data + r->pos, n);
    r->pos += n;
}

void onReadError(png_structp png, png_const_charp msg) {
    auto* r = static_cast<PngReader*>(png_get_error_ptr(png));
    if (!msg) msg = "unknown error";
    // libpng warns what is wrong with IHDR, then fails with "Invalid IHDR data": say both.
    if (r->warning[0] && r->warningChunk != 0 && r->warningChunk == png_get_io_chunk_type(png))
        std::snprintf(r->error, sizeof r->error, "%s: %s", msg, r->warning);
    else
        std::snprintf(r->error, sizeof r->error, "%s", msg);
    png_longjmp(png, 1);
}

// Reading text, a warning on a text chunk means libpng dropped it (a cap, a bad CRC, damaged
// compressed data): stop there, naming the cap where one was hit. libpng's own words for the
// caps are "no space in chunk cache", "chunk data is too large", and for a decompression that
// reached png_set_chunk_malloc_max, "truncated" (as for a stream cut short: the two look alike).
// Other warnings concern chunks that are skipped anyway.
void onReadWarning(png_structp png, png_const_charp msg) {
    auto* r = static_cast<PngReader*>(png_get_error_ptr(png));
    if (!msg) msg = "unknown warning";
    const png_uint_32 chunk = png_get_io_chunk_type(png);
    if (r->wantText && isTextChunk(chunk)) {
        char type[5] = {char(chunk >> 24), char(chunk >> 16), char(chunk >> 8), char(chunk), 0};
        const int mb = int(kMaxPngTextChunkBytes >> 20);
        if (std::strstr(msg, "no space in chunk cache"))
            std::snprintf(r->error, sizeof r->error, "more than %d text chunks (the cap)",
                          kMaxPngTextChunks);
        else if (r->refusedMemory)
            std::snprintf(r->error, sizeof r->error, "text chunks over %d MB in all (the cap)",
                          int(kMaxPngTextBytes >> 20));
        else if (std::strstr(msg, "chunk data is too large"))
            std::snprintf(r->error, sizeof r->error,
                          "a text chunk (%s) over %d MB (the cap on one text chunk)", type, mb);
        else if (std::strstr(msg, "truncated") && chunk != 0x74455874u)
            std::snprintf(r->error, sizeof r->error,
                          "a text chunk (%s) cut short, or over %d MB once decompressed (the cap "
                          "on one text chunk)",
                          type, mb);
        else
            std::snprintf(r->error, sizeof r->error, "unreadable text chunk (%s)", msg);
        r->textFailed = true;
        png_longjmp(png, 1);
    }
    r->warningChunk = chunk;
    std::snprintf(r->warning, sizeof r->warning, "%s", msg);
}

// Reads up to the image data: IHDR, PLTE, tRNS and, with wantText, text chunks; every other
// chunk is skipped unread. False (r.error says why) on any libpng error.
bool readHeader(PngReader& r, png_structp png, png_infop info) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_set_read_fn(png, &r, readFromBuffer);
    png_set_sig_bytes(png, sizeof kPngSignature);
    png_set_user_limits(png, kMaxImageSide, kMaxImageSide);
    // Also the largest decompressed zTXt/iTXt; and at most kMaxPngTextChunks are kept: libpng
    // refuses the one that takes its count down to 1.
    png_set_chunk_malloc_max(png, kMaxPngTextChunkBytes);
    png_set_chunk_cache_max(png, png_uint_32(kMaxPngTextChunks) + 2);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
    if (r.wantText) {
        static const png_byte kText[] = "tEXt\0zTXt\0iTXt";
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT, kText, 3);
    }
    png_read_info(png, info);
    r.width = png_get_image_width(png, info);
    r.height = png_get_image_height(png, info);
    r.bitDepth = png_get_bit_depth(png, info);
    r.colorType = png_get_color_type(png, info);
    r.hasTrns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    r.rowBytes = png_get_rowbytes(png, info);
    return true;
}

// Sets up row decoding: 8-bit samples with the palette and tRNS expanded, unless wantText (raw
// rows, decoded only to reach the chunks after the image data). `passes` gets 7 for an
// interlaced image, else 1; `rowBytes` is the row size the caller expects.
bool startRows(PngReader& r, png_structp png, png_infop info, size_t rowBytes, int& passes) {
    if (setjmp(png_jmpbuf(png))) return false;
    r.rowPhase = true;
    if (!r.wantText) {
        if (r.bitDepth == 16) png_set_strip_16(png);
        if (r.colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
        if (r.colorType == PNG_COLOR_TYPE_GRAY && r.bitDepth < 8)
            png_set_expand_gray_1_2_4_to_8(png);
        if (r.hasTrns) png_set_tRNS_to_alpha(png);
    }
    passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != rowBytes) png_error(png, "unexpected row size");
    return true;
}

// Decodes rows y0..y1-1 of the current pass, row y at out + y * stride (stride 0: each row
// over the last).
bool readRowRange(png_structp png, uint8_t* out, size_t stride, png_uint_32 y0, png_uint_32 y1) {
    if (setjmp(png_jmpbuf(png))) return false;
    for (png_uint_32 y = y0; y < y1; ++y) png_read_row(png, out + y * stride, nullptr);
    return true;
}

// Reads the chunks after the image data, up to IEND.
bool readEnd(PngReader& r, png_structp png, png_infop info) {
    if (setjmp(png_jmpbuf(png))) return false;
    r.rowPhase = false;
    png_read_end(png, info);
    return true;
}

// Destroys libpng's structs on every path out of readPng (this frame holds no setjmp).
struct PngReadGuard {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngReadGuard() {
        if (png) png_destroy_read_struct(&png, &info, nullptr);
    }
};

// The channel count the file decodes to: a palette is RGB, tRNS adds alpha.
int ownChannels(int colorType, bool hasTrns) {
    switch (colorType) {
        case PNG_COLOR_TYPE_GRAY:
            return hasTrns ? 2 : 1;
        case PNG_COLOR_TYPE_GRAY_ALPHA:
            return 2;
        case PNG_COLOR_TYPE_RGB:
        case PNG_COLOR_TYPE_PALETTE:
            return hasTrns ? 4 : 3;
        case PNG_COLOR_TYPE_RGB_ALPHA:
            return 4;
        default:
            return 0;
    }
}

// Converts `n` pixels from `from` to `to` channels in place; the buffer holds n * max(from, to)
// bytes. Growing runs from the last pixel, shrinking from the first, so no pixel is overwritten
// before it is read. stb_image's rules (the reader this replaced).
void convertChannels(uint8_t* p, size_t n, int from, int to) {
    if (from == to) return;
    auto one = [&](size_t i) {
        uint8_t s[4];
        std::memcpy(s, p + i * from, size_t(from));
        const bool colour = from >= 3;
        const uint8_t grey = colour ? uint8_t((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8) : s[0];
        const uint8_t alpha = from == 2 ? s[1] : from == 4 ? s[3] : 255;
        uint8_t* d = p + i * to;
        if (to <= 2) {
            d[0] = grey;
            if (to == 2) d[1] = alpha;
        } else {
            d[0] = colour ? s[0] : grey;
            d[1] = colour ? s[1] : grey;
            d[2] = colour ? s[2] : grey;
            if (to == 4) d[3] = alpha;
        }
    };
    if (to < from)
        for (size_t i = 0; i < n; ++i) one(i);
    else
        for (size_t i = n; i-- > 0;) one(i);
}

void appendLatin1AsUtf8(std::string& out, const char* s, size_t n) {
    out.reserve(out.size() + n);
    for (size_t i = 0; i < n; ++i) {
        const auto c = uint8_t(s[i]);
        if (c < 0x80) {
            out += char(c);
        } else {
            out += char(0xC0 | (c >> 6));
            out += char(0x80 | (c & 0x3F));
        }
    }
}

// Reads a PNG: with `img`, its pixels converted to `channels`; without, its text chunks into
// `text`. Throws FileError naming `name`.
void readPng(const uint8_t* data, size_t size, int channels, const std::string& name, Image* img,
             std::vector<PngText>* text) {
    if (size == 0) throw FileError(name, "empty file, not an image");
    if (size > kMaxImageBytes)
        throw FileError(name, "file is " + std::to_string(size >> 20) +
                                  " MB, larger than the cap of " +
                                  std::to_string(kMaxImageBytes >> 20) + " MB for an image");
    if (size < sizeof kPngSignature || std::memcmp(data, kPngSignature, sizeof kPngSignature) != 0)
        throw FileError(name, "not a PNG image (no PNG signature)");

    PngReader r;  // outlives the guard: libpng's free function reads it while destroying
    r.data = data;
    r.size = size;
    r.pos = sizeof kPngSignature;
    r.wantText = img == nullptr;
    PngReadGuard g;
    g.png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &r, onReadError, onReadWarning, &r,
                                     pngAlloc, pngFree);
    if (!g.png) throw FileError(name, "cannot start libpng (out of memory)");
    g.info = png_create_info_struct(g.png);
    if (!g.info) throw FileError(name, "cannot start libpng (out of memory)");
    auto fail = [&]() -> FileError {
        return FileError(name, r.textFailed ? std::string(r.error)
                                            : "corrupt image (" + std::string(r.error) + ")");
    };

    if (!readHeader(r, g.png, g.info)) throw fail();
    const int own = ownChannels(r.colorType, r.hasTrns);
    const std::string dims = std::to_string(r.width) + "x" + std::to_string(r.height);
    if (r.width == 0 || r.height == 0 || own == 0)
        throw FileError(name, "image has no pixels (" + dims + ")");
    if (int64_t(r.width) * r.height > kMaxImagePixels)
        throw FileError(name, "image is " + dims + ", larger than the limit of " +
                                  std::to_string(kMaxImagePixels) + " pixels");

    if (!img) {
        std::vector<uint8_t> row(r.rowBytes);
        int passes = 1;
        if (!startRows(r, g.png, g.info, r.rowBytes, passes)) throw fail();
        for (int pass = 0; pass < passes; ++pass)
            if (!readRowRange(g.png, row.data(), 0, 0, r.height)) throw fail();
        if (!readEnd(r, g.png, g.info)) throw fail();
        if (r.refusedMemory)
            throw FileError(name, "text chunks over " + std::to_string(kMaxPngTextBytes >> 20) +
                                      " MB in all (the cap)");
        png_textp t = nullptr;
        const int n = png_get_text(g.png, g.info, &t, nullptr);
        size_t total = 0;
        text->clear();
        for (int i = 0; i < n; ++i) {
            const bool itxt = t[i].compression >= PNG_ITXT_COMPRESSION_NONE;
            const size_t len = t[i].text ? (itxt ? t[i].itxt_length : t[i].text_length) : 0;
            const size_t keyLen = t[i].key ? std::strlen(t[i].key) : 0;
            total += keyLen + len;
            if (total > kMaxPngTextBytes)
                throw FileError(name, "text chunks over " + std::to_string(kMaxPngTextBytes >> 20) +
                                          " MB in all (the cap)");
            PngText e;
            appendLatin1AsUtf8(e.keyword, t[i].key, keyLen);
            if (itxt)
                e.text.assign(t[i].text, len);
            else
                appendLatin1AsUtf8(e.text, t[i].text, len);
            e.chunk = itxt                                            ? PngText::Chunk::iTXt
                      : t[i].compression == PNG_TEXT_COMPRESSION_zTXt ? PngText::Chunk::zTXt
                                                                      : PngText::Chunk::tEXt;
            text->push_back(std::move(e));
        }
        return;
    }

    const int want = channels ? channels : own;
    const size_t pixelCount = size_t(r.width) * r.height;
    const size_t stride = size_t(r.width) * own;
    int passes = 1;
    if (!startRows(r, g.png, g.info, stride, passes)) throw fail();
    Image out;
    try {
        // Reserved, not yet touched: a small file claiming a large image is found cut short
        // before most of the memory is used, as the rows are filled band by band (an interlaced
        // image's passes cover the whole image, so it takes it all at once).
        out.pixels.reserve(pixelCount * size_t(std::max(own, want)));
        if (passes > 1) out.pixels.resize(pixelCount * own);
    } catch (const std::bad_alloc&) {
        throw FileError(name, "not enough memory for a " + dims + " image");
    }
    if (passes > 1) {
        for (int pass = 0; pass < passes; ++pass)
            if (!readRowRange(g.png, out.pixels.data(), stride, 0, r.height)) throw fail();
    } else {
        const png_uint_32 band = png_uint_32(std::max<size_t>(1, (size_t(8) << 20) / stride));
        for (png_uint_32 y = 0, y1 = 0; y < r.height; y = y1) {
            y1 = y + std::min(band, r.height - y);
            out.pixels.resize(size_t(y1) * stride);  // within the reserve: no reallocation
            if (!readRowRange(g.png, out.pixels.data(), stride, y, y1)) throw fail();
        }
    }
    if (want > own) out.pixels.resize(pixelCount * want);
    convertChannels(out.pixels.data(), pixelCount, own, want);
    out.pixels.resize(pixelCount * size_t(want));
    out.width = int(r.width);
    out.height = int(r.height);
    out.channels = want;
    *img = std::move(out);
}

// ---- Writing ----------------------------------------------------------------------------------

// As PngReader: what the writing callbacks and the setjmp function touch.
struct PngWriter {
    std::vector<uint8_t>* out = nullptr;
    char error[200] = {};
};

void writeToVector(png_structp png, png_bytep data, size_t n) {
    auto* w = static_cast<PngWriter*>(png_get_io_ptr(png));
    bool ok = true;
    try {
        w->out->insert(w->out->end(), data, data + n);
    } catch (...) {
        ok = false;
    }
    if (!ok) png_error(png, "out of memory");  // outside the catch: nothing left to destroy
}

void flushNothing(png_structp) {}

void onWriteError(png_structp png, png_const_charp msg) {
    auto* w = static_cast<PngWriter*>(png_get_error_ptr(png));
    std::snprintf(w->error, sizeof w->error, "%s", msg ? msg : "unknown error");
    png_longjmp(png, 1);
}

void onWriteWarning(png_structp, png_const_charp) {}

bool writeRows(PngWriter& w, png_structp png, png_infop info, const uint8_t* pixels, int width,
               int height, int channels, png_textp text, int textCount) {
    if (setjmp(png_jmpbuf(png))) return false;
    static const int kColorType[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                      PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(png, &w, writeToVector, flushNothing);
    png_set_user_limits(png, kMaxImageSide, kMaxImageSide);  // libpng's default is 10^6
    png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, kColorType[channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (textCount > 0) png_set_text(png, info, text, textCount);
    png_write_info(png, info);
    const size_t stride = size_t(width) * channels;
    for (int y = 0; y < height; ++y)
        png_write_row(png, const_cast<png_bytep>(pixels + size_t(y) * stride));
    png_write_end(png, info);
    return true;
}

struct PngWriteGuard {
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngWriteGuard() {
        if (png) png_destroy_write_struct(&png, &info);
    }
};

// What UTF-8 text holds, for choosing and checking a chunk type.
struct Utf8Scan {
    bool valid = true;
    bool latin1 = true;  // every character is U+0000-U+00FF; `latin1Bytes` holds them
    bool c1 = false;     // some are C1 controls (U+0080-U+009F)
    bool nul = false;
    std::string latin1Bytes;
};

Utf8Scan scanUtf8(const std::string& s) {
    Utf8Scan r;
    for (size_t i = 0; i < s.size();) {
        const auto c = uint8_t(s[i]);
        uint32_t cp;
        size_t len;
        if (c < 0x80) {
            cp = c, len = 1;
        } else if (c >= 0xC2 && c <= 0xDF) {
            cp = c & 0x1F, len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            cp = c & 0x0F, len = 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            cp = c & 0x07, len = 4;
        } else {
            r.valid = false;
            return r;
        }
        if (s.size() - i < len) {
            r.valid = false;
            return r;
        }
        for (size_t k = 1; k < len; ++k) {
            const auto cc = uint8_t(s[i + k]);
            if ((cc & 0xC0) != 0x80) {
                r.valid = false;
                return r;
            }
            cp = (cp << 6) | (cc & 0x3F);
        }
        // Overlong forms, UTF-16 surrogates, past U+10FFFF.
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            r.valid = false;
            return r;
        }
        if (cp == 0) r.nul = true;
        if (cp >= 0x80 && cp <= 0x9F) r.c1 = true;
        if (cp > 0xFF) r.latin1 = false;
        if (r.latin1) r.latin1Bytes += char(cp);
        i += len;
    }
    return r;
}

// A text entry as libpng writes it: the keyword in Latin-1, the text in the chunk's encoding.
struct EncodedText {
    std::string keyword, text;
    int compression;
};

EncodedText encodeText(const PngText& t) {
    const std::string what = "text chunk \"" + t.keyword.substr(0, 80) + "\": ";
    const Utf8Scan key = scanUtf8(t.keyword);
    if (!key.valid || !key.latin1)
        throw std::invalid_argument(what + "the keyword must be Latin-1 characters in UTF-8");
    const std::string& k = key.latin1Bytes;
    bool printable = k.size() >= 1 && k.size() <= 79 && k.front() != ' ' && k.back() != ' ' &&
                     k.find("  ") == std::string::npos;
    for (char ch : k) printable = printable && ((ch >= 32 && ch <= 126) || uint8_t(ch) >= 161);
    if (!printable)
        throw std::invalid_argument(what +
                                    "the keyword must be 1-79 printable Latin-1 characters, "
                                    "without leading, trailing or double spaces");
    const Utf8Scan body = scanUtf8(t.text);
    if (!body.valid) throw std::invalid_argument(what + "the text is not UTF-8");
    if (body.nul) throw std::invalid_argument(what + "the text holds a NUL character");
    // Room for the chunk's fields besides the text (iTXt: 5 bytes), as the reader counts.
    if (k.size() + t.text.size() + 8 > kMaxPngTextChunkBytes)
        throw std::invalid_argument(what + "over " + std::to_string(kMaxPngTextChunkBytes >> 20) +
                                    " MB, the cap on one text chunk when reading");
    PngText::Chunk chunk = t.chunk;
    if (chunk == PngText::Chunk::Auto)
        chunk = body.latin1 && !body.c1 ? PngText::Chunk::tEXt : PngText::Chunk::iTXt;
    if (chunk == PngText::Chunk::iTXt)
        return {k, t.text,
                t.text.size() >= 1024 ? PNG_ITXT_COMPRESSION_zTXt : PNG_ITXT_COMPRESSION_NONE};
    if (!body.latin1)
        throw std::invalid_argument(what + "tEXt and zTXt hold Latin-1 text only (iTXt: any)");
    return {k, body.latin1Bytes,
            chunk == PngText::Chunk::zTXt ? PNG_TEXT_COMPRESSION_zTXt : PNG_TEXT_COMPRESSION_NONE};
}

}  // namespace

Image decodeImage(const uint8_t* data, size_t size, int channels, const std::string& name) {
    if (channels < 0 || channels > 4)
        throw FileError(name,
                        "channels must be 0 (as stored) or 1-4, got " + std::to_string(channels));
    Image img;
    readPng(data, size, channels, name, &img, nullptr);
    return img;
}

Image readImage(const std::string& path, int channels) {
    // A regular file (a FIFO or a device is refused before any read) of at most kMaxImageBytes.
    const std::string bytes = readBoundedFile(path, kMaxImageBytes, "image");
    return decodeImage(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), channels,
                       path);
}

std::vector<PngText> decodePngText(const uint8_t* data, size_t size, const std::string& name) {
    std::vector<PngText> text;
    readPng(data, size, 0, name, nullptr, &text);
    return text;
}

std::vector<PngText> readPngText(const std::string& path) {
    const std::string bytes = readBoundedFile(path, kMaxImageBytes, "image");
    return decodePngText(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path);
}

std::vector<uint8_t> encodePng(const Image& img) {
    return encodePng(img, {});
}

std::vector<uint8_t> encodePng(const Image& img, const std::vector<PngText>& text) {
    if (img.width <= 0 || img.height <= 0)
        throw std::invalid_argument("image has no pixels (" + std::to_string(img.width) + "x" +
                                    std::to_string(img.height) + ")");
    if (img.channels < 1 || img.channels > 4)
        throw std::invalid_argument("image has " + std::to_string(img.channels) +
                                    " channels; PNG takes 1-4");
    if (int64_t(img.width) * img.height > kMaxImagePixels ||
        uint32_t(std::max(img.width, img.height)) > kMaxImageSide)
        throw std::invalid_argument("image is larger than the pixel limit");
    const size_t need = size_t(img.width) * img.height * img.channels;
    if (img.pixels.size() != need)
        throw std::invalid_argument("image holds " + std::to_string(img.pixels.size()) +
                                    " bytes, width x height x channels needs " +
                                    std::to_string(need));
    // The reader's caps, so that what is written reads back.
    if (text.size() > size_t(kMaxPngTextChunks))
        throw std::invalid_argument("more than " + std::to_string(kMaxPngTextChunks) +
                                    " text chunks (the cap): " + std::to_string(text.size()));
    // libpng reads the strings through these pointers while writing.
    std::vector<EncodedText> encoded;
    encoded.reserve(text.size());
    size_t total = 0;
    for (const auto& t : text) {
        encoded.push_back(encodeText(t));
        total += encoded.back().keyword.size() + encoded.back().text.size();
    }
    if (total > kMaxPngTextBytes)
        throw std::invalid_argument("text chunks over " + std::to_string(kMaxPngTextBytes >> 20) +
                                    " MB in all (the cap)");
    std::vector<png_text> chunks(encoded.size());
    for (size_t i = 0; i < encoded.size(); ++i) {
        chunks[i] = png_text{};
        chunks[i].compression = encoded[i].compression;
        chunks[i].key = const_cast<char*>(encoded[i].keyword.c_str());
        chunks[i].text = const_cast<char*>(encoded[i].text.c_str());
        chunks[i].text_length = encoded[i].text.size();
    }

    std::vector<uint8_t> out;
    PngWriter w;
    w.out = &out;
    PngWriteGuard g;
    g.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w, onWriteError, onWriteWarning);
    if (!g.png) throw std::runtime_error("PNG encoding failed: cannot start libpng");
    g.info = png_create_info_struct(g.png);
    if (!g.info) throw std::runtime_error("PNG encoding failed: cannot start libpng");
    if (!writeRows(w, g.png, g.info, img.pixels.data(), img.width, img.height, img.channels,
                   chunks.data(), int(chunks.size())))
        throw std::runtime_error(std::string("PNG encoding failed: ") + w.error);
    return out;
}

void writePng(const std::string& path, const Image& img) {
    writePng(path, img, {});
}

void writePng(const std::string& path, const Image& img, const std::vector<PngText>& text) {
    std::vector<uint8_t> png;
    try {
        png = encodePng(img, text);
    } catch (const std::exception& e) {
        throw FileError(path, e.what());
    }
    writeFileAtomically(path, png.data(), png.size());
}

}  // namespace hs
