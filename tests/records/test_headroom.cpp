#include <gtest/gtest.h>

#include <cmath>

#include "diagnosis/headroom.h"
#include "record_fixtures.h"

using namespace hs;

namespace {

const PointHeadroom* find(const HeadroomReport& r, const std::string& name) {
    for (const auto& p : r.points)
        if (p.name == name) return &p;
    return nullptr;
}

// A bf16 run whose massive activations sit in transformer block 1's ff (peaking at step 12)
// and single block 2 (at step 3), with a VAE up block in the saturating band.
double massive(const std::string& name, int step) {
    if (name == "transformer.transformer_blocks.1.ff")
        return step == 12 ? 131008.0 : 40000.0 + step;
    if (name == "transformer.single_transformer_blocks.2.proj_out")
        return step == 3 ? 65520.0 : 1000.0;
    if (name == "vae.decoder.up_blocks.3.resnets.0") return 65519.0;
    return test::defaultMagnitude(name, step);
}

}  // namespace

TEST(Headroom, BitsAndThresholds) {
    EXPECT_DOUBLE_EQ(fp16HeadroomBits(65504.0 / 8), 3.0);
    EXPECT_DOUBLE_EQ(fp16HeadroomBits(65504.0), 0.0);
    EXPECT_NEAR(fp16HeadroomBits(131008.0), -1.0, 1e-12);
    EXPECT_TRUE(std::isinf(fp16HeadroomBits(0.0)));
    EXPECT_GT(fp16HeadroomBits(0.0), 0);
    EXPECT_TRUE(std::isnan(fp16HeadroomBits(std::nan(""))));
    EXPECT_EQ(kFp16OverflowThreshold, 65520.0);
}

TEST(Headroom, CleanRunPerPointMaximaAndPeakSteps) {
    test::FixtureOptions o;
    o.transformerFormat = Format::BF16;
    o.magnitude = massive;
    const RunRecord run = test::makeRun(o);
    const HeadroomReport r = analyzeHeadroom(run);
    EXPECT_TRUE(r.reliable);
    EXPECT_TRUE(r.note.empty());
    // Every distinct point once, in call order.
    const size_t perPass = test::textEncoderPoints().size() + test::transformerPoints().size() +
                           test::vaePoints().size();
    ASSERT_EQ(r.points.size(), perPass);
    EXPECT_EQ(r.points.front().name, "text_encoder.text_model.embeddings");
    EXPECT_EQ(r.points.back().name, "vae.decoder.conv_out");
    for (size_t i = 1; i < r.points.size(); ++i)
        EXPECT_LT(r.points[i - 1].firstIndex, r.points[i].firstIndex);

    const auto* ff = find(r, "transformer.transformer_blocks.1.ff");
    ASSERT_NE(ff, nullptr);
    EXPECT_EQ(ff->records, 20);
    EXPECT_DOUBLE_EQ(ff->maxAbs, 131008.0);
    EXPECT_EQ(ff->peakStep, 12);
    EXPECT_NEAR(ff->headroomBits, -1.0, 1e-12);
    EXPECT_TRUE(ff->overflows);
    EXPECT_FALSE(ff->saturates);
    EXPECT_EQ(ff->firstOverflowStep, 12);
    EXPECT_EQ(ff->block, "transformer.transformer_blocks.1");

    const auto* single = find(r, "transformer.single_transformer_blocks.2.proj_out");
    ASSERT_NE(single, nullptr);
    EXPECT_TRUE(single->overflows);  // exactly 65520: the tie rounds to Inf
    EXPECT_EQ(single->firstOverflowStep, 3);

    const auto* sat = find(r, "vae.decoder.up_blocks.3.resnets.0");
    ASSERT_NE(sat, nullptr);
    EXPECT_FALSE(sat->overflows);  // 65519 rounds to 65504
    EXPECT_TRUE(sat->saturates);
    EXPECT_LT(sat->headroomBits, 0);
    EXPECT_EQ(sat->peakStep, -1);

    const auto* te = find(r, "text_encoder.text_model.encoder.layers.0.mlp");
    EXPECT_EQ(te->records, 1);
    EXPECT_GT(te->headroomBits, 10);

    // Predicted overflow list in call order; the first failure is the earliest overflowing
    // record: single block 2 at step 3 comes before block 1's peak at step 12.
    ASSERT_EQ(r.overflowing.size(), 2u);
    EXPECT_EQ(r.points[r.overflowing[0]].name, "transformer.transformer_blocks.1.ff");
    EXPECT_EQ(r.points[r.overflowing[1]].name, "transformer.single_transformer_blocks.2.proj_out");
    ASSERT_TRUE(r.firstFailure.has_value());
    EXPECT_EQ(r.firstFailure->point, "transformer.single_transformer_blocks.2.proj_out");
    EXPECT_EQ(r.firstFailure->block, "transformer.single_transformer_blocks.2");
    EXPECT_EQ(r.firstFailure->step, 3);
    EXPECT_EQ(run.probes[r.firstFailure->probeIndex].step, 3);
    EXPECT_NEAR(r.minHeadroomBits, -1.0, 1e-12);
}

TEST(Headroom, EarliestPointWithinTheFirstOverflowingStep) {
    test::FixtureOptions o;
    o.magnitude = [](const std::string& n, int step) {
        if (step == 6 && (n == "transformer.transformer_blocks.2.ff" ||
                          n == "transformer.transformer_blocks.0.attn"))
            return 70000.0;
        if (step == 9 && n == "transformer.x_embedder") return 80000.0;
        return test::defaultMagnitude(n, step);
    };
    const HeadroomReport r = analyzeHeadroom(test::makeRun(o));
    ASSERT_TRUE(r.firstFailure.has_value());
    EXPECT_EQ(r.firstFailure->point, "transformer.transformer_blocks.0.attn");
    EXPECT_EQ(r.firstFailure->step, 6);
    // Call order of points: x_embedder is called before block 0 in every step.
    ASSERT_EQ(r.overflowing.size(), 3u);
    EXPECT_EQ(r.points[r.overflowing[0]].name, "transformer.x_embedder");
}

TEST(Headroom, TargetPlanKeepsPointsOutOfFp16) {
    test::FixtureOptions o;
    o.magnitude = massive;
    HeadroomOptions opt;
    opt.targetPlan = PrecisionPlan::parse(
        "transformer=fp16,transformer.single_transformer_blocks.2=bf16,vae=fp32");
    const HeadroomReport r = analyzeHeadroom(test::makeRun(o), opt);
    ASSERT_EQ(r.overflowing.size(), 1u);
    EXPECT_EQ(r.points[r.overflowing[0]].name, "transformer.transformer_blocks.1.ff");
    EXPECT_EQ(r.firstFailure->step, 12);
    EXPECT_FALSE(find(r, "transformer.single_transformer_blocks.2.proj_out")->runsInFp16);
    EXPECT_FALSE(find(r, "text_encoder.text_model.embeddings")->runsInFp16);  // no rule: fp32
}

TEST(Headroom, NoOverflowInAComfortableRun) {
    const HeadroomReport r = analyzeHeadroom(test::makeRun());
    EXPECT_TRUE(r.overflowing.empty());
    EXPECT_FALSE(r.firstFailure.has_value());
    EXPECT_GT(r.minHeadroomBits, 4);
}

TEST(Headroom, AFailedRunIsFlaggedUnreliable) {
    test::FixtureOptions o;
    o.transformerFormat = Format::FP16;
    o.failAt = std::make_pair(std::string("transformer.transformer_blocks.2.ff"), 0);
    const HeadroomReport r = analyzeHeadroom(test::makeRun(o));
    EXPECT_FALSE(r.reliable);
    EXPECT_NE(r.note.find("transformer.transformer_blocks.2.ff"), std::string::npos);
    EXPECT_FALSE(find(r, "transformer.transformer_blocks.2.attn")->afterFailure);
    EXPECT_TRUE(find(r, "transformer.transformer_blocks.2.ff")->afterFailure);
    EXPECT_TRUE(find(r, "vae.decoder.conv_out")->afterFailure);
}
