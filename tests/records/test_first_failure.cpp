#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "diagnosis/first_failure.h"
#include "record_fixtures.h"

using namespace hs;

namespace {

test::FixtureOptions fp16(std::string point, int step) {
    test::FixtureOptions o;
    o.transformerFormat = Format::FP16;
    o.failAt = std::make_pair(std::move(point), step);
    return o;
}

}  // namespace

TEST(FirstFailure, CleanRunHasNoFinding) {
    EXPECT_FALSE(findFirstFailure(test::makeRun()).has_value());
}

TEST(FirstFailure, TransformerOverflowAtStepZero) {
    const RunRecord run = test::makeRun(fp16("transformer.transformer_blocks.2.ff", 0));
    const auto f = findFirstFailure(run);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->step, 0);
    EXPECT_EQ(f->component, "transformer");
    EXPECT_EQ(f->point, "transformer.transformer_blocks.2.ff");
    EXPECT_EQ(f->block, "transformer.transformer_blocks.2");
    EXPECT_TRUE(f->fromProbe);
    EXPECT_EQ(f->kind, NonFiniteKind::PosInf);
    EXPECT_EQ(f->posInf, 12);
    EXPECT_EQ(f->negInf, 3);
    EXPECT_EQ(f->nan, 0);
    EXPECT_EQ(f->format, Format::FP16);
    EXPECT_EQ(f->execution, Execution::Emulated);
    EXPECT_EQ(run.probes[f->probeIndex].name, f->point);
    ASSERT_TRUE(f->inputPoint.has_value());
    EXPECT_EQ(*f->inputPoint, "transformer.transformer_blocks.2.attn");
    EXPECT_DOUBLE_EQ(f->inputAbsMax,
                     test::defaultMagnitude("transformer.transformer_blocks.2.attn", 0));
    EXPECT_EQ(
        f->chainText(),
        "transformer.transformer_blocks.2 (step 0) -> latents (step 0) -> vae.post_quant_conv "
        "-> image");
    EXPECT_TRUE(f->reachedImage);
    EXPECT_NE(f->summary().find("+Inf first at transformer.transformer_blocks.2.ff"),
              std::string::npos);
    EXPECT_NE(f->kindText().find("12 +Inf, 3 -Inf, 0 NaN of 4096"), std::string::npos);
}

TEST(FirstFailure, LaterStepAndChainThroughTheDecoder) {
    // The VAE without post_quant_conv (module points off): the chain enters at vae.decoder.
    auto o = fp16("transformer.single_transformer_blocks.1.proj_out", 7);
    RunRecord run = test::makeRun(o);
    run.probes.erase(
        std::remove_if(run.probes.begin(), run.probes.end(),
                       [](const ProbeRecord& p) { return p.name == "vae.post_quant_conv"; }),
        run.probes.end());
    const auto f = findFirstFailure(run);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->step, 7);
    EXPECT_EQ(f->block, "transformer.single_transformer_blocks.1");
    EXPECT_EQ(f->chainText(),
              "transformer.single_transformer_blocks.1 (step 7) -> latents (step 7) -> "
              "vae.decoder -> image");
    ASSERT_EQ(f->chain.size(), 4u);
    EXPECT_EQ(f->chain[2].point, "vae.decoder.conv_in");
    EXPECT_EQ(f->chain[1].nonFinite, 16 * 8 * 8);
}

TEST(FirstFailure, FirstPointOfAStepTakesThePreviousLatentsAsInput) {
    const RunRecord run = test::makeRun(fp16("transformer.time_text_embed", 4));
    const auto f = findFirstFailure(run);
    ASSERT_TRUE(f.has_value());
    ASSERT_TRUE(f->inputPoint.has_value());
    EXPECT_EQ(*f->inputPoint, "latents");
    EXPECT_EQ(f->inputStep, 3);
    EXPECT_DOUBLE_EQ(f->inputAbsMax, 3.0 - 0.05 * 3);
}

TEST(FirstFailure, VaeOverflowStaysInTheVae) {
    test::FixtureOptions o;
    o.vaeFormat = Format::FP16;
    o.failAt = std::make_pair(std::string("vae.decoder.up_blocks.1.resnets.0"), -1);
    const RunRecord run = test::makeRun(o);
    const auto f = findFirstFailure(run);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->component, "vae");
    EXPECT_EQ(f->step, -1);
    EXPECT_EQ(f->block, "vae.decoder.up_blocks.1");
    EXPECT_EQ(f->chainText(), "vae.decoder.up_blocks.1 -> image");
    EXPECT_EQ(*f->inputPoint, "vae.decoder.up_blocks.0");
}

TEST(FirstFailure, TextEncoderFailureSpreadsThroughEveryStage) {
    test::FixtureOptions o;
    o.textFormat = Format::FP16;
    o.failAt = std::make_pair(std::string("text_encoder.text_model.encoder.layers.1.mlp"), -1);
    const auto f = findFirstFailure(test::makeRun(o));
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->component, "text_encoder");
    EXPECT_EQ(f->chainText(),
              "text_encoder.text_model.encoder.layers.1 -> text_embedding -> "
              "transformer.time_text_embed (step 0) -> latents (step 0) -> vae.post_quant_conv -> "
              "image");
}

TEST(FirstFailure, NaNOnlyIsReportedAsNaN) {
    auto o = fp16("transformer.transformer_blocks.0.attn", 2);
    o.failWithNaNOnly = true;
    const auto f = findFirstFailure(test::makeRun(o));
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->kind, NonFiniteKind::NaN);
    EXPECT_EQ(f->nan, 7);
}

TEST(FirstFailure, NegativeInfinityWinsWhenMoreNumerous) {
    RunRecord run = test::makeRun(fp16("transformer.transformer_blocks.1.ff", 0));
    for (auto& p : run.probes)
        if (p.name == "transformer.transformer_blocks.1.ff" && p.step == 0) {
            p.stats.posInf = 1;
            p.stats.negInf = 9;
        }
    EXPECT_EQ(findFirstFailure(run)->kind, NonFiniteKind::NegInf);
}

TEST(FirstFailure, WithoutProbesFallsBackToTheLatents) {
    auto o = fp16("transformer.transformer_blocks.2.ff", 5);
    RunRecord run = test::makeRun(o);
    run.probes.clear();  // probing off
    run.firstNonFinite.reset();
    const auto f = findFirstFailure(run);
    ASSERT_TRUE(f.has_value());
    EXPECT_FALSE(f->fromProbe);
    EXPECT_EQ(f->point, "latents");
    EXPECT_EQ(f->step, 5);
    EXPECT_EQ(f->component, "transformer");
    EXPECT_EQ(f->format, Format::FP16);  // the component's format
    EXPECT_EQ(f->kind, NonFiniteKind::NaN);
    EXPECT_EQ(f->chainText(), "latents (step 5) -> image");
    ASSERT_TRUE(f->inputPoint.has_value());
    EXPECT_EQ(*f->inputPoint, "latents");
    EXPECT_EQ(f->inputStep, 4);
}

TEST(FirstFailure, ImageOnlyFailure) {
    RunRecord run = test::makeRun();
    run.probes.clear();
    run.image.nan = 10;
    run.image.finite -= 10;
    const auto f = findFirstFailure(run);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->point, "image");
    EXPECT_EQ(f->component, "vae");
    EXPECT_EQ(f->chainText(), "image");
}

TEST(FirstFailure, EngineRecordedPointWhenProbesWereTrimmed) {
    RunRecord run = test::makeRun(fp16("transformer.transformer_blocks.2.ff", 0));
    const FirstNonFinite engine = *run.firstNonFinite;
    // A record that kept the engine's finding but not the probes, steps or image.
    RunRecord trimmed;
    trimmed.firstNonFinite = engine;
    const auto f = findFirstFailure(trimmed);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->point, "transformer.transformer_blocks.2.ff");
    EXPECT_EQ(f->block, "transformer.transformer_blocks.2");
    EXPECT_EQ(*f->inputPoint, "transformer.transformer_blocks.2.attn");
}
