// The transformer phase's data and loss: scenes encoded with the share of each latent pixel their
// objects cover, and a flow loss that can weigh those pixels more than the background.
#include <gtest/gtest.h>

#include <filesystem>

#include "demo/caption_grammar.h"
#include "demo/demo_config.h"
#include "demo/demo_tokenizer.h"
#include "demo/train_models.h"
#include "demo/world.h"
#include "test_util.h"

using namespace hs;

namespace {

struct Fixture {
    std::string dir = test::tempDir("flow-loss");
    demo::BpeVocabulary vocab = demo::learnBpe(demo::grammarWords());
    demo::TrainModels m;
    demo::EncodedSet data;
    Fixture() : m(make(dir, vocab)) {
        data = demo::encodeScenes(m, m.vae, demo::kImageSize, 7, 8, 1.0, 0.0);
    }
    ~Fixture() { std::filesystem::remove_all(dir); }
    static demo::TrainModels make(const std::string& dir, const demo::BpeVocabulary& v) {
        demo::writeTokenizerFolder(dir, v, demo::kTextLength);
        return demo::makeTrainModels(v, dir);
    }
    double loss(const demo::EncodedSet& d, double objectWeight) {
        torch::manual_seed(3);  // the same batch, times and noise for every call
        return demo::flowMatchingLoss(m, d, 4, 0.0, objectWeight).item<double>();
    }
};

}  // namespace

TEST(DemoFlowLoss, EncodedScenesKnowWhereTheirObjectsAre) {
    Fixture f;
    const auto& cover = f.data.objectCover;  // [8, 1, 16, 16]
    ASSERT_EQ(cover.sizes(), (std::vector<int64_t>{8, 1, 16, 16}));
    EXPECT_GE(cover.min().item<float>(), 0.0f);
    EXPECT_LE(cover.max().item<float>(), 1.0f);
    const int64_t f8 = demo::kImageSize / 16;  // pixels per latent pixel
    for (int i = 0; i < 8; ++i) {
        // The covered area, in pixels, is the objects' rendered area (the anti-aliased rim
        // counts whole in the cover, partly in the mask).
        double area = 0;
        for (const auto& obj : f.data.scenes[size_t(i)].objects)
            for (float v : demo::renderMask(obj)) area += v;
        const double covered = cover[i].sum().item<double>() * double(f8 * f8);
        EXPECT_GT(covered, 0.9 * area) << i;
        EXPECT_LT(covered, 1.5 * area) << i;
    }
}

TEST(DemoFlowLoss, ObjectWeightingLeavesAUniformCoverAloneAndShiftsTheLossOtherwise) {
    Fixture f;
    const double uniform = f.loss(f.data, 1);
    demo::EncodedSet none = f.data, all = f.data;
    none.objectCover = torch::zeros_like(f.data.objectCover);
    all.objectCover = torch::ones_like(f.data.objectCover);
    // Every latent pixel weighted alike is the plain mean, whatever the weight.
    EXPECT_NEAR(f.loss(none, 10), uniform, 1e-5 * uniform);
    EXPECT_NEAR(f.loss(all, 10), uniform, 1e-5 * uniform);
    // Weighted towards the objects, it is another number, and more so at a larger weight.
    const double w4 = f.loss(f.data, 4), w40 = f.loss(f.data, 40);
    EXPECT_GT(std::abs(w4 - uniform), 1e-4 * uniform);
    EXPECT_GT(std::abs(w40 - uniform), std::abs(w4 - uniform));
}
