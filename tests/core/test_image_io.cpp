// PNG reading/writing through stb, atomic writes, clear errors for bad files, and the
// tensor <-> image conversions (ranges, layouts, rounding, NaN shown as magenta).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

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
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

#define EXPECT_HAS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

class ImageIoTest : public ::testing::Test {
protected:
    void SetUp() override { m_dir = hs::test::tempDir("img"); }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string path(const std::string& n) const { return m_dir + "/" + n; }
    int tempFiles() const {
        int n = 0;
        for (const auto& e : fs::directory_iterator(m_dir))
            n += e.path().filename().string().find(".tmp-") != std::string::npos;
        return n;
    }
    std::string m_dir;
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
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("cut.png")); }), "cut.png: corrupt image");

    // A tiny grey PNG claiming 20000 x 20000 pixels (400 MB once decoded) is refused before
    // anything is allocated. IHDR width/height sit at bytes 16-23; stb does not check CRCs.
    // (stb itself refuses images over 1 GiB, with a vaguer message.)
    auto bomb = hs::encodePng(randomImage(1, 1, 1, 3));
    for (int i : {16, 20}) {
        bomb[i] = 0, bomb[i + 1] = 0, bomb[i + 2] = 0x4E, bomb[i + 3] = 0x20;  // 20000
    }
    writeBytes(path("bomb.png"), bomb);
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("bomb.png")); }), "larger than the limit");
    EXPECT_THROW(hs::readImage(path("bomb.png")), hs::FileError);

    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("junk.png"), 7); }), "channels must be");

    // Found by fuzz_image: stb read this PPM header as 2 x 0 pixels and "decoded" it, and a
    // short 16-bit PPM ("P6 8288 18288 13838") made Debian's libstb read past the buffer. Only
    // PNGs reach stb.
    writeBytes(path("flat.ppm"),
               {'P', '6', '\n', '2', '$', '1', '\n', '2', '5', '5', '\n', 0xff, 0, 0, 0, 0xff, 0});
    EXPECT_HAS(errorOfImageIo([&] { hs::readImage(path("flat.ppm")); }),
               "flat.ppm: not a PNG image");
}

TEST_F(ImageIoTest, WriteErrors) {
    hs::Image bad{4, 4, 3, std::vector<uint8_t>(10)};
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("bad.png"), bad); }),
               "bad.png: image holds 10 bytes");
    hs::Image five{1, 1, 5, std::vector<uint8_t>(5)};
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("five.png"), five); }), "5 channels");
    EXPECT_HAS(errorOfImageIo([&] { hs::writePng(path("none.png"), hs::Image{}); }), "no pixels");
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
