// PNG reading/writing through libpng (files from another encoder: palette + tRNS, 1/2/4/16-bit,
// Adam7; text chunks and their caps; truncated, corrupt and oversized files), atomic writes,
// clear errors for bad files, and the tensor <-> image conversions (ranges, layouts, rounding,
// NaN shown as magenta). The foreign PNGs are tests/data/images/*.png, written by
// tests/data/images/make_pngs.py (zlib + struct, no PIL): python3 tests/data/images/make_pngs.py
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <tuple>

#include "io/image_io.h"
#include "io/image_tensor.h"
#include "io/safetensors.h"  // FileError
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

hs::Image randomImage(int w, int h, int c, unsigned seed) {
    std::mt19937 rng(seed);
    hs::Image img{w, h, c, {}};
    img.pixels.resize(size_t(w) * h * c);
    for (auto& p : img.pixels) p = uint8_t(rng());
    return img;
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& b) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

template <typename Fn>
std::string errorOfImageIo(Fn fn) {
    return hs::test::messageOf(fn);
}

// PNG's CRC-32 (ISO 3309, zlib's crc32), computed here so that patched files stay valid and the
// writer's CRCs are checked by code other than libpng's.
uint32_t pngCrc(const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

void pngPut32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (24 - 8 * i));
}

uint32_t pngGet32(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | b[at + 3];
}

// A whole chunk: length, type, data, CRC.
std::vector<uint8_t> pngChunk(const std::string& type, const std::vector<uint8_t>& data) {
    std::vector<uint8_t> c(8);
    pngPut32(c, 0, uint32_t(data.size()));
    std::copy(type.begin(), type.end(), c.begin() + 4);
    c.insert(c.end(), data.begin(), data.end());
    c.resize(c.size() + 4);
    pngPut32(c, c.size() - 4, pngCrc(c.data() + 4, data.size() + 4));
    return c;
}

// A file's chunks: where each starts, its whole size (12 + data) and type. Checks the layout
// and every CRC on the way.
struct PngSpan {
    size_t at, size;
    std::string type;
};
std::vector<PngSpan> pngSpans(const std::vector<uint8_t>& png) {
    std::vector<PngSpan> spans;
    EXPECT_GE(png.size(), 8u);
    for (size_t at = 8; at + 12 <= png.size();) {
        const size_t n = pngGet32(png, at);
        if (at + 12 + n > png.size()) break;
        spans.push_back({at, 12 + n, std::string(png.begin() + at + 4, png.begin() + at + 8)});
        EXPECT_EQ(pngGet32(png, at + 8 + n), pngCrc(png.data() + at + 4, n + 4))
            << spans.back().type << " at " << at;
        at += 12 + n;
    }
    return spans;
}

// `png` with `extra` (whole chunks) inserted before its first chunk of type `before`.
std::vector<uint8_t> pngInsert(std::vector<uint8_t> png, const std::string& before,
                               const std::vector<uint8_t>& extra) {
    for (const auto& s : pngSpans(png))
        if (s.type == before) {
            png.insert(png.begin() + s.at, extra.begin(), extra.end());
            return png;
        }
    ADD_FAILURE() << "no " << before << " chunk";
    return png;
}

// `png` claiming `w` x `h` pixels, its IHDR CRC made right again.
std::vector<uint8_t> pngWithSize(std::vector<uint8_t> png, uint32_t w, uint32_t h) {
    pngPut32(png, 16, w);
    pngPut32(png, 20, h);
    pngPut32(png, 29, pngCrc(png.data() + 12, 17));
    return png;
}

std::vector<uint8_t> fixturePng(const std::string& name) {
    std::ifstream f(hs::test::dataPath("images/" + name), std::ios::binary);
    EXPECT_TRUE(f.good()) << name;
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

hs::Image decodePng(const std::vector<uint8_t>& png, int channels = 0) {
    return hs::decodeImage(png.data(), png.size(), channels, "test.png");
}

std::vector<hs::PngText> decodeText(const std::vector<uint8_t>& png) {
    return hs::decodePngText(png.data(), png.size(), "test.png");
}

// The fixtures' 16-bit samples (make_pngs.py's sample16).
// `img` is w x h with `channels` channels, its sample (x, y, c) `want(x, y, c)`.
template <class F>
void expectPixelsImageIo(const hs::Image& img, int channels, int w, int h, F want) {
    ASSERT_EQ(img.channels, channels);
    ASSERT_EQ(img.width, w);
    ASSERT_EQ(img.height, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c)
                EXPECT_EQ(img.at(x, y)[c], want(x, y, c)) << x << "," << y << "," << c;
}

uint16_t pngSample16(int x, int y, int c) {
    return uint16_t((x * 7919 + y * 104729 + c * 31337 + 12345) & 0xFFFF);
}

// stb_image's channel conversion rules, which decodeImage keeps.
std::vector<uint8_t> pngConvertPixel(const uint8_t* s, int from, int to) {
    const uint8_t grey = from >= 3 ? uint8_t((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8) : s[0];
    const uint8_t alpha = from == 2 ? s[1] : from == 4 ? s[3] : 255;
    const uint8_t r = from >= 3 ? s[0] : grey, g = from >= 3 ? s[1] : grey,
                  b = from >= 3 ? s[2] : grey;
    switch (to) {
        case 1:
            return {grey};
        case 2:
            return {grey, alpha};
        case 3:
            return {r, g, b};
        default:
            return {r, g, b, alpha};
    }
}

std::string errorOfPngText(const std::vector<uint8_t>& png) {
    return errorOfImageIo([&] { decodeText(png); });
}

class ImageIoTest : public hs::test::TempDirTest {
protected:
    std::string path(const std::string& n) const { return m_dir + "/" + n; }
    int tempFiles() const {
        int n = 0;
        for (const auto& e : fs::directory_iterator(m_dir))
            n += e.path().filename().string().find(".tmp-") != std::string::npos;
        return n;
    }
};

}  // namespace

TEST_F(ImageIoTest, PngRoundTrip) {
    for (int c = 1; c <= 4; ++c) {
        SCOPED_TRACE(c);
        const auto img = randomImage(37, 19, c, unsigned(c));
        const std::string p = path("rt" + std::to_string(c) + ".png");
        hs::writePng(p, img);
        const auto back = hs::readImage(p);
        EXPECT_EQ(back.width, 37);
        EXPECT_EQ(back.height, 19);
        EXPECT_EQ(back.channels, c);
        EXPECT_EQ(back.pixels, img.pixels);
    }
    // Converting on read: RGBA -> RGB drops alpha.
    const auto rgba = randomImage(4, 3, 4, 9);
    hs::writePng(path("a.png"), rgba);
    const auto rgb = hs::readImage(path("a.png"), 3);
    ASSERT_EQ(rgb.channels, 3);
    EXPECT_EQ(rgb.at(2, 1)[1], rgba.at(2, 1)[1]);
    // Overwriting is atomic and leaves no temporary file.
    hs::writePng(path("a.png"), randomImage(2, 2, 3, 1));
    EXPECT_EQ(hs::readImage(path("a.png")).width, 2);
    EXPECT_EQ(tempFiles(), 0);

    // The bytes are a plain PNG: signature, IHDR first (8-bit, the colour type of the channel
    // count, not interlaced), IDAT, IEND last, every CRC right (pngSpans checks them).
    const std::vector<uint8_t> kColourType = {0, 0, 4, 2, 6};
    for (int c = 1; c <= 4; ++c) {
        const auto img = randomImage(300, 7, c, unsigned(c + 10));
        const auto png = hs::encodePng(img);
        EXPECT_EQ(std::vector<uint8_t>(png.begin(), png.begin() + 8),
                  (std::vector<uint8_t>{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}));
        const auto spans = pngSpans(png);
        ASSERT_GE(spans.size(), 3u);
        EXPECT_EQ(spans.front().type, "IHDR");
        EXPECT_EQ(spans.back().type, "IEND");
        EXPECT_EQ(spans.back().at + spans.back().size, png.size());
        EXPECT_EQ(pngGet32(png, 16), 300u);
        EXPECT_EQ(pngGet32(png, 20), 7u);
        EXPECT_EQ(png[24], 8);
        EXPECT_EQ(png[25], kColourType[c]);
        EXPECT_EQ(png[28], 0);
        EXPECT_EQ(decodePng(png).pixels, img.pixels);
    }
    // Wider than libpng's default limit of 10^6 per side (Halfscope's is 2^24, as stb's was).
    const auto wide = randomImage(1000001, 1, 1, 4);
    EXPECT_EQ(decodePng(hs::encodePng(wide)).pixels, wide.pixels);
}

TEST_F(ImageIoTest, ChannelConversions) {
    // Every stored count read as every count, against stb_image's rules (what the reader used to
    // be): grey = (77 R + 150 G + 29 B) >> 8, an added alpha is opaque, a dropped one is lost.
    for (int from = 1; from <= 4; ++from) {
        const auto img = randomImage(9, 4, from, unsigned(from * 7));
        const auto png = hs::encodePng(img);
        for (int to = 1; to <= 4; ++to) {
            SCOPED_TRACE(std::to_string(from) + " -> " + std::to_string(to));
            const auto got = decodePng(png, to);
            ASSERT_EQ(got.channels, to);
            ASSERT_EQ(got.pixels.size(), size_t(9 * 4 * to));
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 9; ++x)
                    ASSERT_EQ(std::vector<uint8_t>(got.at(x, y), got.at(x, y) + to),
                              pngConvertPixel(img.at(x, y), from, to))
                        << x << "," << y;
        }
    }
}

TEST_F(ImageIoTest, PngsFromAnotherEncoder) {
    // tests/data/images/make_pngs.py wrote these with every row filter; each pixel is compared
    // with the formula the script used.
    const uint8_t kPalette[5][3] = {
        {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 0}, {10, 20, 30}};
    const uint8_t kPaletteAlpha[5] = {0, 128, 255, 255, 255};
    {
        SCOPED_TRACE("4-bit palette with tRNS");
        const auto png = fixturePng("palette_trns_4bit.png");
        const auto img = decodePng(png);  // RGBA: tRNS becomes alpha
        ASSERT_EQ(img.width, 7);
        ASSERT_EQ(img.height, 5);
        ASSERT_EQ(img.channels, 4);
        const auto rgb = decodePng(png, 3);
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 7; ++x) {
                const int i = (x + 2 * y) % 5;
                const uint8_t* p = img.at(x, y);
                EXPECT_EQ(std::vector<uint8_t>(p, p + 4),
                          (std::vector<uint8_t>{kPalette[i][0], kPalette[i][1], kPalette[i][2],
                                                kPaletteAlpha[i]}))
                    << x << "," << y;
                EXPECT_EQ(std::vector<uint8_t>(rgb.at(x, y), rgb.at(x, y) + 3),
                          std::vector<uint8_t>(p, p + 3));
            }
    }
    {
        SCOPED_TRACE("2-bit grey, value 2 transparent");
        expectPixelsImageIo(decodePng(fixturePng("grey_trns_2bit.png")), 2, 6, 3,
                            [](int x, int y, int c) {
                                const int v = (x + y) % 4;
                                return c == 0 ? v * 85 : v == 2 ? 0 : 255;
                            });
    }
    {
        SCOPED_TRACE("16-bit RGB: the high byte");
        expectPixelsImageIo(decodePng(fixturePng("rgb16.png")), 3, 5, 3,
                            [](int x, int y, int c) { return pngSample16(x, y, c) >> 8; });
    }
    {
        SCOPED_TRACE("16-bit RGBA, Adam7");
        const auto png = fixturePng("rgba16_adam7.png");
        const auto img = decodePng(png);
        ASSERT_NO_FATAL_FAILURE(expectPixelsImageIo(
            img, 4, 11, 9, [](int x, int y, int c) { return pngSample16(x, y, c) >> 8; }));
        const auto grey = decodePng(png, 1);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 11; ++x)
                EXPECT_EQ(grey.at(x, y)[0], pngConvertPixel(img.at(x, y), 4, 1)[0]);
    }
    {
        SCOPED_TRACE("1-bit grey, Adam7");
        expectPixelsImageIo(decodePng(fixturePng("grey1_adam7.png")), 1, 10, 9,
                            [](int x, int y, int) { return (x * 3 + y * 5) % 7 < 3 ? 255 : 0; });
    }
    {
        SCOPED_TRACE("text chunks do not change the pixels");
        const auto img = hs::readImage(hs::test::dataPath("images/text_chunks.png"));
        ASSERT_EQ(img.channels, 3);
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 3; ++x)
                EXPECT_EQ(std::vector<uint8_t>(img.at(x, y), img.at(x, y) + 3),
                          (std::vector<uint8_t>{uint8_t(x * 80), uint8_t(y * 100), 7}));
    }
}

TEST_F(ImageIoTest, TextChunksFromAnotherEncoder) {
    // ComfyUI's tEXt "prompt" and zTXt "workflow", A1111's iTXt "parameters" (UTF-8), a
    // compressed iTXt with a language tag, Latin-1 in a tEXt, and a tEXt after the image data.
    const auto text = hs::readPngText(hs::test::dataPath("images/text_chunks.png"));
    using C = hs::PngText::Chunk;
    const std::vector<std::tuple<std::string, std::string, C>> expect = {
        {"prompt", R"({"3": {"class_type": "KSampler", "inputs": {"seed": 42, "steps": 20}}})",
         C::tEXt},
        {"workflow", R"({"nodes": [{"id": 3, "type": "KSampler"}], "links": [], "version": 0.4})",
         C::zTXt},
        {"parameters",
         "a cat on a mat, \xe7\x8c\xab\nNegative prompt: blurry\nSteps: 20, Sampler: Euler a",
         C::iTXt},
        {"Comment",
         [] {
             std::string s;
             for (int i = 0; i < 8; ++i) s += "compressed iTXt ";
             return s;
         }(),
         C::iTXt},
        {"Author", "Zo\xc3\xab", C::tEXt},  // Latin-1 0xEB, as UTF-8
        {"after", "written after the image data", C::tEXt}};
    ASSERT_EQ(text.size(), expect.size());
    for (size_t i = 0; i < expect.size(); ++i) {
        EXPECT_EQ(text[i].keyword, std::get<0>(expect[i]));
        EXPECT_EQ(text[i].text, std::get<1>(expect[i]));
        EXPECT_EQ(text[i].chunk, std::get<2>(expect[i])) << text[i].keyword;
    }
}

TEST_F(ImageIoTest, TextChunksRoundTrip) {
    using C = hs::PngText::Chunk;
    std::string longText;
    for (int i = 0; i < 100; ++i) longText += "{\"node\": " + std::to_string(i) + "}, ";
    const std::vector<hs::PngText> texts = {
        {"prompt", R"({"3": {"class_type": "KSampler"}})"},  // Auto, ASCII: tEXt
        {"Author", "Zo\xc3\xab"},                            // Auto, Latin-1: tEXt
        {"parameters", "\xe7\x8c\xab, Steps: 20"},           // Auto, not Latin-1: iTXt
        {"workflow", longText, C::zTXt},
        {"Comment", longText, C::iTXt},     // over 1 KiB: compressed
        {"Caf\xc3\xa9", "short", C::iTXt},  // a Latin-1 keyword
        {"empty", ""}};
    const auto img = randomImage(5, 4, 3, 21);
    hs::writePng(path("t.png"), img, texts);
    const auto back = hs::readPngText(path("t.png"));
    const std::vector<C> kinds = {C::tEXt, C::tEXt, C::iTXt, C::zTXt, C::iTXt, C::iTXt, C::tEXt};
    ASSERT_EQ(back.size(), texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
        EXPECT_EQ(back[i].keyword, texts[i].keyword);
        EXPECT_EQ(back[i].text, texts[i].text);
        EXPECT_EQ(back[i].chunk, kinds[i]) << texts[i].keyword;
    }
    EXPECT_EQ(hs::readImage(path("t.png")).pixels, img.pixels);

    // On disk: Latin-1 where the chunk is tEXt ("Zo" 0xEB), zTXt and a compressed iTXt shorter
    // than their text, the small iTXt not compressed.
    std::ifstream f(path("t.png"), std::ios::binary);
    const std::vector<uint8_t> png(std::istreambuf_iterator<char>(f), {});
    std::vector<std::string> types;
    for (const auto& s : pngSpans(png)) {
        types.push_back(s.type);
        const std::string data(png.begin() + s.at + 8, png.begin() + s.at + s.size - 4);
        if (data.rfind("Author", 0) == 0) {
            EXPECT_EQ(data, std::string("Author\0Zo\xeb", 10));
        }
        if (s.type == "zTXt" || data.rfind("Comment", 0) == 0) {
            EXPECT_LT(data.size(), longText.size() / 2) << data.substr(0, 8);
        }
        if (data.rfind("parameters", 0) == 0) {
            EXPECT_EQ(data[11], 0) << "compression flag";
        }
        if (data.rfind("Comment", 0) == 0) {
            EXPECT_EQ(data[8], 1) << "compression flag";
        }
    }
    EXPECT_EQ(types, (std::vector<std::string>{"IHDR", "tEXt", "tEXt", "iTXt", "zTXt", "iTXt",
                                               "iTXt", "tEXt", "IDAT", "IEND"}));

    // A PNG without text chunks has none; the old signatures write none.
    EXPECT_TRUE(decodeText(hs::encodePng(img)).empty());
}

TEST_F(ImageIoTest, TextChunksThatCannotBeWritten) {
    const auto img = randomImage(2, 2, 1, 1);
    using C = hs::PngText::Chunk;
    auto err = [&](const std::vector<hs::PngText>& t) {
        return errorOfImageIo([&] { hs::encodePng(img, t); });
    };
    EXPECT_HAS(err({{"", "x"}}), "1-79 printable Latin-1");
    EXPECT_HAS(err({{std::string(80, 'k'), "x"}}), "1-79 printable Latin-1");
    EXPECT_HAS(err({{" lead", "x"}}), "1-79 printable Latin-1");
    EXPECT_HAS(err({{"double  space", "x"}}), "1-79 printable Latin-1");
    EXPECT_HAS(err({{"tab\there", "x"}}), "1-79 printable Latin-1");
    EXPECT_HAS(err({{"\xe7\x8c\xab", "x"}}), "keyword must be Latin-1");
    EXPECT_HAS(err({{"k", std::string("a\0b", 3)}}), "NUL");
    EXPECT_HAS(err({{"k", "\xff\xfe"}}), "not UTF-8");
    EXPECT_HAS(err({{"k", "\xed\xa0\x80"}}), "not UTF-8");  // a UTF-16 surrogate
    EXPECT_HAS(err({{"k", "\xc0\xaf"}}), "not UTF-8");      // overlong
    EXPECT_HAS(err({{"k", "\xe7\x8c\xab", C::tEXt}}), "Latin-1 text only");
    EXPECT_HAS(err({{"k", "\xe7\x8c\xab", C::zTXt}}), "Latin-1 text only");
    // The reader's caps.
    EXPECT_HAS(err({{"k", std::string(8 << 20, 'a'), C::zTXt}}), "the cap on one text chunk");
    EXPECT_HAS(err(std::vector<hs::PngText>(65, {"k", "x"})), "more than 64 text chunks");
    const hs::PngText six{"k", std::string(6 << 20, 'a'), C::zTXt};
    EXPECT_HAS(err({six, six, six}), "16 MB in all");
    EXPECT_HAS(errorOfImageIo([&] {
                   hs::writePng(path("k.png"), img, {{"", "x"}});
               }),
               "k.png: text chunk");
    EXPECT_FALSE(fs::exists(path("k.png")));
    EXPECT_NO_THROW(hs::encodePng(img, std::vector<hs::PngText>(64, {"k", "x"})));
}

TEST_F(ImageIoTest, TextChunkCaps) {
    // 100 MB of "a" in a 100 KB zTXt (written by make_pngs.py): refused at the 8 MB cap on one
    // chunk, after inflating at most 8 MB, not 100.
    const auto start = std::chrono::steady_clock::now();
    const std::string bomb =
        errorOfImageIo([&] { hs::readPngText(hs::test::dataPath("images/ztxt_bomb.png")); });
    EXPECT_HAS(bomb,
               "ztxt_bomb.png: a text chunk (zTXt) cut short, or over 8 MB once decompressed");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
    EXPECT_HAS(
        errorOfImageIo([&] { hs::readPngText(hs::test::dataPath("images/itxt_over_cap.png")); }),
        "a text chunk (iTXt) cut short, or over 8 MB once decompressed");
    // Reading the pixels skips text chunks, so the image is fine.
    const auto px = hs::readImage(hs::test::dataPath("images/ztxt_bomb.png"));
    EXPECT_EQ(px.pixels, std::vector<uint8_t>{200});

    const auto base = hs::encodePng(randomImage(3, 3, 3, 5));
    // 64 text chunks read, a 65th is refused.
    const auto one = pngChunk("tEXt", {'k', 0, 'v'});
    std::vector<uint8_t> many;
    for (int i = 0; i < 64; ++i) many.insert(many.end(), one.begin(), one.end());
    EXPECT_EQ(decodeText(pngInsert(base, "IDAT", many)).size(), 64u);
    many.insert(many.end(), one.begin(), one.end());
    EXPECT_HAS(errorOfPngText(pngInsert(base, "IDAT", many)), "more than 64 text chunks (the cap)");
    // A stored tEXt over 8 MB.
    std::vector<uint8_t> big = {'k', 0};
    big.resize(big.size() + (9 << 20), 'a');
    EXPECT_HAS(errorOfPngText(pngInsert(base, "IDAT", pngChunk("tEXt", big))),
               "a text chunk (tEXt) over 8 MB (the cap on one text chunk)");
    // Three 6 MB zTXt chunks (each within its cap): 18 MB in all.
    const auto withSix = hs::encodePng(
        randomImage(1, 1, 1, 1), {{"k", std::string(6 << 20, 'a'), hs::PngText::Chunk::zTXt}});
    std::vector<uint8_t> sixChunk;
    for (const auto& s : pngSpans(withSix))
        if (s.type == "zTXt")
            sixChunk.assign(withSix.begin() + s.at, withSix.begin() + s.at + s.size);
    ASSERT_FALSE(sixChunk.empty());
    EXPECT_EQ(decodeText(withSix).at(0).text.size(), size_t(6) << 20);
    std::vector<uint8_t> three;
    for (int i = 0; i < 3; ++i) three.insert(three.end(), sixChunk.begin(), sixChunk.end());
    EXPECT_HAS(errorOfPngText(pngInsert(base, "IDAT", three)), "text chunks over 16 MB in all");
}

TEST_F(ImageIoTest, DamagedTextChunks) {
    const auto png = hs::encodePng(randomImage(4, 4, 3, 8), {{"prompt", "a cat"}});
    // A wrong CRC on the text chunk: the text reader refuses the file, the image reader does not
    // read the chunk at all.
    auto bad = png;
    for (const auto& s : pngSpans(png))
        if (s.type == "tEXt") bad[s.at + s.size - 1] ^= 0x55;
    EXPECT_HAS(errorOfPngText(bad), "test.png: unreadable text chunk (tEXt: CRC error)");
    EXPECT_EQ(decodePng(bad).pixels, decodePng(png).pixels);
    // A text chunk before IHDR.
    std::vector<uint8_t> early(png.begin(), png.begin() + 8);
    const auto t = pngChunk("tEXt", {'k', 0, 'v'});
    early.insert(early.end(), t.begin(), t.end());
    early.insert(early.end(), png.begin() + 8, png.end());
    EXPECT_THROW(decodeText(early), hs::FileError);
    // Damaged zTXt data (CRC right): refused by name.
    const auto z = hs::encodePng(randomImage(1, 1, 1, 1),
                                 {{"k", std::string(300, 'q'), hs::PngText::Chunk::zTXt}});
    auto zbad = z;
    for (const auto& s : pngSpans(z))
        if (s.type == "zTXt") {
            zbad[s.at + 8 + 3 + 4] ^= 0xFF;  // inside the deflate data after "k\0\0" + zlib header
            pngPut32(zbad, s.at + s.size - 4, pngCrc(zbad.data() + s.at + 4, s.size - 8));
        }
    EXPECT_HAS(errorOfPngText(zbad), "zTXt");
}

TEST_F(ImageIoTest, ReadErrors) {
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("absent.png")); }),
               "absent.png: cannot open");
    writeBytes(path("empty.png"), {});
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("empty.png")); }), "empty file");
    writeBytes(path("junk.png"), {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("junk.png")); }),
               "junk.png: not a PNG image");

    // A PNG cut in half: the header reads, the pixel data does not.
    auto png = hs::encodePng(randomImage(64, 64, 3, 2));
    writeBytes(path("cut.png"), std::vector<uint8_t>(png.begin(), png.begin() + png.size() / 2));
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("cut.png")); }),
               "cut.png: corrupt image (the file is cut short)");

    // Tiny grey PNGs claiming 20000 x 20000 and 100000 x 100000 pixels (400 MB and 10 GB once
    // decoded) are refused before anything is allocated; likewise by the text reader, which
    // would decompress the rows. IHDR width/height sit at bytes 16-23 (CRC made right).
    const auto onePixel = hs::encodePng(randomImage(1, 1, 1, 3));
    writeBytes(path("bomb.png"), pngWithSize(onePixel, 20000, 20000));
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("bomb.png")); }),
               "bomb.png: image is 20000x20000, larger than the limit");
    EXPECT_THROW(hs::readImage(path("bomb.png")), hs::FileError);
    const auto huge = pngWithSize(onePixel, 100000, 100000);
    EXPECT_HAS(errorOfImageIo([&] { decodePng(huge); }), "larger than the limit");
    EXPECT_HAS(errorOfPngText(huge), "larger than the limit");
    // Past libpng's per-side limit (2^24), and zero wide or high: libpng's own reasons.
    EXPECT_HAS(errorOfImageIo([&] { decodePng(pngWithSize(onePixel, 1u << 25, 1)); }),
               "exceeds user limit");
    EXPECT_HAS(errorOfImageIo([&] { decodePng(pngWithSize(onePixel, 0, 1)); }),
               "corrupt image (Invalid IHDR data: Image width is zero in IHDR)");
    EXPECT_HAS(errorOfImageIo([&] { decodePng(pngWithSize(onePixel, 1, 0)); }),
               "Image height is zero in IHDR");
    EXPECT_THROW(decodeText(pngWithSize(onePixel, 0, 0)), hs::FileError);

    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("junk.png"), 7); }), "channels must be");

    // Found by fuzz_image: stb read this PPM header as 2 x 0 pixels and "decoded" it, and a
    // short 16-bit PPM ("P6 8288 18288 13838") made Debian's libstb read past the buffer. Only
    // PNGs are read.
    writeBytes(path("flat.ppm"),
               {'P', '6', '\n', '2', '$', '1', '\n', '2', '5', '5', '\n', 0xff, 0, 0, 0, 0xff, 0});
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("flat.ppm")); }),
               "flat.ppm: not a PNG image");
}

TEST_F(ImageIoTest, TruncatedAndCorruptPngs) {
    const auto img = randomImage(13, 11, 4, 17);
    const auto png = hs::encodePng(img, {{"prompt", "before the pixels"}});
    size_t idatEnd = 0;
    for (const auto& s : pngSpans(png))
        if (s.type == "IDAT") idatEnd = s.at + s.size;
    // Every cut: a FileError, or (cut inside IEND, after the whole image) the image. The text
    // reader needs IEND.
    for (size_t n = 0; n < png.size(); ++n) {
        SCOPED_TRACE(n);
        const std::vector<uint8_t> cut(png.begin(), png.begin() + n);
        if (n < idatEnd)
            EXPECT_THROW(decodePng(cut), hs::FileError);
        else
            EXPECT_EQ(decodePng(cut).pixels, img.pixels);
        EXPECT_THROW(decodeText(cut), hs::FileError);
    }
    // A wrong CRC on IHDR or IDAT.
    for (const std::string type : {"IHDR", "IDAT"}) {
        auto bad = png;
        for (const auto& s : pngSpans(png))
            if (s.type == type) bad[s.at + s.size - 2] ^= 1;
        EXPECT_HAS(errorOfImageIo([&] { decodePng(bad); }), type + ": CRC error");
        EXPECT_HAS(errorOfPngText(bad), type + ": CRC error");
    }
    // Each byte of the image data flipped, its CRC made right: damaged data is a FileError or
    // an image of the right size, never a crash (the sanitizer builds check the "never").
    size_t idat = 0, idatSize = 0;
    for (const auto& s : pngSpans(png))
        if (s.type == "IDAT") idat = s.at, idatSize = s.size;
    int refused = 0;
    for (size_t i = idat + 8; i < idat + idatSize - 4; ++i) {
        auto bad = png;
        bad[i] ^= 0xFF;
        pngPut32(bad, idat + idatSize - 4, pngCrc(bad.data() + idat + 4, idatSize - 8));
        try {
            const auto got = decodePng(bad);
            EXPECT_EQ(got.pixels.size(), img.pixels.size());
        } catch (const hs::FileError&) {
            ++refused;
        }
    }
    EXPECT_GT(refused, 0);
}

TEST_F(ImageIoTest, WriteErrors) {
    hs::Image bad{4, 4, 3, std::vector<uint8_t>(10)};
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("bad.png"), bad); }),
               "bad.png: image holds 10 bytes");
    hs::Image five{1, 1, 5, std::vector<uint8_t>(5)};
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("five.png"), five); }), "5 channels");
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("none.png"), hs::Image{}); }), "no pixels");
    EXPECT_HAS(errorOfImageIo([&] {
                   hs::encodePng(hs::Image{1 << 25, 1, 1, {}});
               }),
               "larger than the pixel limit");
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("nodir/x.png"), randomImage(1, 1, 1, 1)); }),
               "cannot create temporary file");
    EXPECT_FALSE(fs::exists(path("bad.png")));
    EXPECT_EQ(tempFiles(), 0);
}

TEST_F(ImageIoTest, TensorToImage) {
    // [3, 1, 4] in [-1, 1]: -1 -> 0, 1 -> 255, 0 -> 127.5 -> 128 (half to even, like numpy's
    // round in diffusers' numpy_to_pil), out of range clamps, +Inf -> 255.
    auto t = torch::tensor({-1.f, 1.f, 0.f, 5.f,             //
                            -3.f, 0.f, INFINITY, -INFINITY,  //
                            0.5f, -0.5f, 1.f, 0.f})
                 .reshape({3, 1, 4});
    auto img = hs::imageFromTensor(t, hs::PixelRange::MinusOneToOne);
    ASSERT_EQ(img.width, 4);
    ASSERT_EQ(img.height, 1);
    ASSERT_EQ(img.channels, 3);
    const std::vector<uint8_t> expect = {0, 0, 191, 255, 128, 64, 128, 255, 255, 255, 0, 128};
    EXPECT_EQ(img.pixels, expect);

    // The same data as [H, W, C], with a batch dimension, and as bf16: same image.
    EXPECT_EQ(hs::imageFromTensor(t.permute({1, 2, 0})).pixels, expect);
    EXPECT_EQ(hs::imageFromTensor(t.unsqueeze(0)).pixels, expect);
    EXPECT_EQ(hs::imageFromTensor(torch::tensor({0.f, 1.f}).reshape({1, 2}).to(torch::kBFloat16),
                                  hs::PixelRange::ZeroToOne)
                  .pixels,
              (std::vector<uint8_t>{0, 255}));

    // Parity with diffusers' postprocessing, ((x / 2 + 0.5).clamp(0, 1) * 255).round() in
    // float32, on values crowded onto the rounding ties.
    torch::manual_seed(3);
    auto x = torch::randint(0, 1021, {3, 16, 16}).to(torch::kFloat32) / 510.f - 1.f;
    auto ref =
        ((x / 2 + 0.5).clamp(0, 1) * 255).round().to(torch::kUInt8).permute({1, 2, 0}).contiguous();
    auto got = hs::imageFromTensor(x);
    EXPECT_EQ(std::vector<uint8_t>(ref.data_ptr<uint8_t>(), ref.data_ptr<uint8_t>() + ref.numel()),
              got.pixels);

    // [1, 1, 3] could be [C, H, W] or [H, W, C]: read as [C, H, W] (grey, 3 wide).
    auto amb = hs::imageFromTensor(torch::zeros({1, 1, 3}));
    EXPECT_EQ(amb.channels, 1);
    EXPECT_EQ(amb.width, 3);
}

TEST_F(ImageIoTest, NanIsMagentaNeverBlack) {
    auto t = torch::zeros({3, 2, 2});
    t[1][0][1] = NAN;  // one channel of pixel (x=1, y=0)
    auto img = hs::imageFromTensor(t, hs::PixelRange::ZeroToOne);
    const uint8_t* p = img.at(1, 0);
    EXPECT_EQ(p[0], 255);
    EXPECT_EQ(p[1], 0);
    EXPECT_EQ(p[2], 255);
    EXPECT_EQ(img.at(0, 0)[0], 0);
    auto grey = hs::imageFromTensor(torch::full({2, 2}, NAN), hs::PixelRange::ZeroToOne);
    EXPECT_EQ(grey.pixels, (std::vector<uint8_t>{255, 255, 255, 255}));
    auto off = hs::imageFromTensor(t, hs::PixelRange::ZeroToOne, /*nanAsMagenta=*/false);
    EXPECT_EQ(off.at(1, 0)[1], 0);
}

TEST_F(ImageIoTest, ImageTensorRoundTrip) {
    const auto img = randomImage(5, 7, 3, 11);
    for (auto range : {hs::PixelRange::MinusOneToOne, hs::PixelRange::ZeroToOne}) {
        auto t = hs::tensorFromImage(img, range);
        EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 7, 5}));
        EXPECT_EQ(hs::imageFromTensor(t, range).pixels, img.pixels);
    }
    EXPECT_THROW(hs::imageFromTensor(torch::zeros({5, 5, 5})), std::invalid_argument);
    EXPECT_THROW(hs::imageFromTensor(torch::zeros({2, 3, 4, 4})), std::invalid_argument);
}
