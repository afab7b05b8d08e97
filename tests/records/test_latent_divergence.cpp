#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "diagnosis/latent_divergence.h"
#include "record_fixtures.h"

using namespace hs;

TEST(LatentDivergence, RelativeL2) {
    EXPECT_DOUBLE_EQ(relativeL2({3, 4}, {3, 4}), 0.0);
    EXPECT_DOUBLE_EQ(relativeL2({3, 4}, {0, 0}), 1.0);
    EXPECT_DOUBLE_EQ(relativeL2({3, 4}, {3, 4 + 0.5f}), 0.1);
    EXPECT_DOUBLE_EQ(relativeL2({0, 0}, {0, 0}), 0.0);
    EXPECT_TRUE(std::isinf(relativeL2({0, 0}, {1, 0})));
    EXPECT_THROW(relativeL2({1, 2}, {1}), std::invalid_argument);
}

TEST(LatentDivergence, NonFiniteGivesInfinityAndAFlag) {
    bool bad = false;
    const double d = relativeL2({1, 2, 3}, {1, std::nanf(""), 3}, &bad);
    EXPECT_TRUE(std::isinf(d));
    EXPECT_GT(d, 0);
    EXPECT_TRUE(bad);
    bad = false;
    EXPECT_TRUE(std::isinf(relativeL2({1, INFINITY, 3}, {1, 2, 3}, &bad)));
    EXPECT_TRUE(bad);
    relativeL2({1, 2}, {1, 2}, &bad);
    EXPECT_FALSE(bad);
}

TEST(LatentDivergence, PerStepBetweenTwoRuns) {
    test::FixtureOptions ref;
    ref.keepLatents = true;
    RunRecord a = test::makeRun(ref);
    test::FixtureOptions fp16 = ref;
    fp16.transformerFormat = Format::FP16;
    fp16.failAt = std::make_pair(std::string("transformer.transformer_blocks.1.ff"), 6);
    RunRecord b = test::makeRun(fp16);
    // Before the failure the fp16 latents drift a little.
    for (auto& s : b.steps)
        if (s.step < 6)
            for (auto& v : s.latentValues) v *= 1.0f + 0.001f * float(s.step);
    const auto d = latentDivergence(a, b);
    ASSERT_EQ(d.size(), 20u);
    EXPECT_TRUE(d[0].available);
    EXPECT_NEAR(d[0].relativeL2, 0.0, 1e-12);
    EXPECT_NEAR(d[3].relativeL2, 0.003, 1e-6);
    EXPECT_FALSE(d[5].nonFinite);
    EXPECT_TRUE(d[6].nonFinite);
    EXPECT_TRUE(std::isinf(d[6].relativeL2));
    EXPECT_TRUE(d[19].nonFinite);
}

TEST(LatentDivergence, MissingLatentsAndSteps) {
    RunRecord a = test::makeRun();  // keepLatents off
    test::FixtureOptions shorter;
    shorter.steps = 10;
    shorter.keepLatents = true;
    RunRecord b = test::makeRun(shorter);
    const auto d = latentDivergence(a, b);
    ASSERT_EQ(d.size(), 20u);
    EXPECT_FALSE(d[0].available);
    EXPECT_NE(d[0].note.find("keepLatents"), std::string::npos);
    EXPECT_FALSE(d[15].available);
    EXPECT_NE(d[15].note.find("missing in the other"), std::string::npos);
    b.steps[2].latentValues.resize(5);
    a.steps[2].latentValues.assign(7, 1.0f);
    EXPECT_NE(latentDivergence(a, b)[2].note.find("different sizes"), std::string::npos);
}
