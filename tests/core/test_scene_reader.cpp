// The prompt-following reader must read the world's own renders back exactly, and stay right
// on blurred ones (a VAE's reconstructions are soft).
#include <gtest/gtest.h>

#include <cmath>

#include "demo/scene_reader.h"

using namespace hs::demo;

namespace {

std::vector<uint8_t> toRgb8(const std::vector<float>& img) {
    std::vector<uint8_t> out(img.size());
    for (size_t i = 0; i < img.size(); ++i)
        out[i] = uint8_t(std::lround(std::clamp(img[i], 0.f, 1.f) * 255.f));
    return out;
}

// 3x3 box blur, edges clamped: [H][W][3].
std::vector<float> blur(const std::vector<float>& img, int size) {
    std::vector<float> out(img.size());
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            for (int c = 0; c < 3; ++c) {
                float s = 0;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int yy = std::clamp(y + dy, 0, size - 1);
                        const int xx = std::clamp(x + dx, 0, size - 1);
                        s += img[(size_t(yy) * size + xx) * 3 + c];
                    }
                out[(size_t(y) * size + x) * 3 + c] = s / 9.f;
            }
    return out;
}

PromptFollowing readBack(int count, bool blurred) {
    PromptFollowing t;
    for (uint64_t seed = 1; t.scenes < count; ++seed) {
        const Scene s = randomScene(seed);
        if (s.objects.size() != 1) continue;
        auto img = render(s);
        if (blurred) img = blur(img, kImageSize);
        t.add(s.objects[0], s.background, readScene(toRgb8(img), kImageSize));
    }
    return t;
}

}  // namespace

TEST(SceneReader, ReadsRendersBack) {
    const PromptFollowing t = readBack(200, false);
    EXPECT_EQ(t.background, 200);
    EXPECT_EQ(t.colour, 200);
    EXPECT_EQ(t.position, 200);
    EXPECT_GE(t.size, 196);
    for (int s = 0; s < 5; ++s) {
        EXPECT_GT(t.shapeTotal[s], 20) << shapeNames()[s];
        EXPECT_EQ(t.shapeCorrect[s], t.shapeTotal[s]) << shapeNames()[s];
    }
}

TEST(SceneReader, ToleratesBlur) {
    const PromptFollowing t = readBack(200, true);
    EXPECT_EQ(t.background, 200);
    EXPECT_GE(t.colour, 198);
    EXPECT_EQ(t.position, 200);
    EXPECT_GE(t.shapeRate(), 0.9);
    EXPECT_GE(t.shapeRate(Shape::Star), 0.8);
    EXPECT_GE(t.shapeRate(Shape::Ring), 0.8);
}

TEST(SceneReader, EmptyPictureHasNoObject) {
    std::vector<float> img(size_t(kImageSize) * kImageSize * 3, 0.f);
    for (size_t i = 0; i < img.size(); i += 3) img[i] = 0.9f, img[i + 1] = 0.1f, img[i + 2] = 0.1f;
    const SceneReading r = readScene(toRgb8(img), kImageSize);
    EXPECT_FALSE(r.objectFound);
    EXPECT_EQ(std::string(palette()[r.background].name), "red");
}

TEST(SceneReader, UnstatedAttributesAreNotCounted) {
    PromptFollowing t;
    const Scene s = randomScene(11);  // one large red triangle on the left, yellow background
    ASSERT_EQ(s.objects.size(), 1u);
    SceneReading wrong = readScene(toRgb8(render(s)), kImageSize);
    ASSERT_TRUE(wrong.objectFound);
    wrong.position = Position::Right;
    wrong.size = Size::Small;
    t.add(s.objects[0], s.background, wrong, /*background*/ false, /*position*/ false,
          /*size*/ false);
    EXPECT_EQ(t.scenes, 1);
    EXPECT_EQ(t.found, 1);
    EXPECT_EQ(t.colour, 1);
    EXPECT_EQ(t.backgroundStated + t.positionStated + t.sizeStated, 0);
    t.add(s.objects[0], s.background, wrong);  // all stated: position and size now count wrong
    EXPECT_EQ(t.positionStated, 1);
    EXPECT_EQ(t.position, 0);
    EXPECT_EQ(t.size, 0);
    EXPECT_EQ(t.background, 1);
    SceneReading empty;
    t.add(s.objects[0], s.background, empty);  // nothing drawn: wrong everywhere
    EXPECT_EQ(t.found, 2);
    EXPECT_DOUBLE_EQ(t.shapeRate(), 2.0 / 3.0);
}
