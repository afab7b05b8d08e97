#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/demo_tokenizer.h"
#include "demo/world.h"
#include "test_util.h"
#include "text/clip_tokenizer.h"

using namespace hs;
using namespace hs::demo;

TEST(DemoWorld, SameSeedSameSceneAndPixels) {
    for (uint64_t seed : {0ull, 1ull, 123456789ull}) {
        auto a = randomScene(seed), b = randomScene(seed);
        EXPECT_EQ(a.caption(), b.caption());
        EXPECT_EQ(render(a), render(b));
    }
    EXPECT_NE(randomScene(1).caption() + randomScene(2).caption(),
              randomScene(3).caption() + randomScene(4).caption());
}

TEST(DemoWorld, ScenesFollowTheGrammar) {
    std::set<std::string> shapes, colours;
    int two = 0;
    for (uint64_t s = 0; s < 600; ++s) {
        auto sc = randomScene(s);
        ASSERT_GE(sc.objects.size(), 1u);
        ASSERT_LE(sc.objects.size(), 2u);
        if (sc.objects.size() == 2) {
            ++two;
            EXPECT_NE(sc.objects[0].position, sc.objects[1].position);
            EXPECT_NE(sc.objects[0].colour, sc.objects[1].colour);
        }
        for (const auto& o : sc.objects) {
            EXPECT_NE(o.colour, sc.background);
            shapes.insert(shapeNames()[int(o.shape)]);
            colours.insert(palette()[o.colour].name);
        }
        const std::string c = sc.caption();
        EXPECT_EQ(c.rfind("a ", 0), 0u) << c;
        EXPECT_NE(c.find(std::string(palette()[sc.background].name) + " background"),
                  std::string::npos);
    }
    EXPECT_EQ(shapes.size(), 5u);
    EXPECT_GE(colours.size(), 8u);
    EXPECT_GT(two, 100);
    EXPECT_EQ(randomScene(11).caption(), "a large red triangle on the left, yellow background");
}

TEST(DemoWorld, RenderingIsAntiAliasedAndShapesDiffer) {
    SceneObject o;
    o.size = Size::Large;
    std::vector<std::vector<float>> masks;
    for (int s = 0; s < 5; ++s) {
        o.shape = Shape(s);
        masks.push_back(renderMask(o));
        int partial = 0;
        double area = 0;
        for (float v : masks.back()) {
            partial += v > 0 && v < 1;
            area += v;
        }
        EXPECT_GT(partial, 10) << shapeNames()[s];  // soft edges
        EXPECT_GT(area, 60) << shapeNames()[s];
    }
    // Every pair of shapes differs in many pixels (else shape accuracy is unmeasurable).
    for (int a = 0; a < 5; ++a)
        for (int b = a + 1; b < 5; ++b) {
            double diff = 0;
            for (size_t i = 0; i < masks[a].size(); ++i)
                diff += std::fabs(masks[a][i] - masks[b][i]);
            EXPECT_GT(diff, 40) << shapeNames()[a] << " vs " << shapeNames()[b];
        }
}

TEST(DemoWorld, BatchesAreImagesInMinusOneToOne) {
    auto b = makeBatch(5, 4);
    EXPECT_EQ(b.images.sizes(), (std::vector<int64_t>{4, 3, kImageSize, kImageSize}));
    EXPECT_GE(b.images.min().item<float>(), -1.f);
    EXPECT_LE(b.images.max().item<float>(), 1.f);
    EXPECT_EQ(b.captions[1], randomScene(6).caption());
}

TEST(DemoTokenizer, EveryGrammarWordIsOneTokenAndOtherTextStillTokenizes) {
    const std::string dir = test::tempDir("demo-tok");
    writeTokenizerFolder(dir, learnBpe(grammarWords()), 32);
    auto tok = ClipTokenizer::fromFolder(dir);
    EXPECT_EQ(tok.modelMaxLength(), 32);
    for (const auto& w : grammarWords()) {
        auto ids = tok.tokenIds(w);
        EXPECT_EQ(ids.size(), 1u) << w;
    }
    auto ids = tok.encode(randomScene(3).caption());
    EXPECT_EQ(ids.front(), tok.bosId());
    EXPECT_EQ(ids.back(), tok.eosId());
    EXPECT_LE(ids.size(), 32u);
    // Out of vocabulary, CJK and emoji: byte fallback, still valid ids.
    auto odd = tok.encodePadded("a teal hexagon 六角形 🎈", 32);
    EXPECT_EQ(odd.size(), 32u);
    for (int id : odd) EXPECT_LT(size_t(id), tok.vocabSize());
    std::filesystem::remove_all(dir);
}
