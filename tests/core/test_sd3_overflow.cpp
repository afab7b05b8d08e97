// SD3.5's fp16 failure on the tiny SD3 pipeline: a model whose residual-stream writers are
// scaled so that its feed-forward outputs pass fp16's range (as the real bf16-trained one's
// massive activations do) run with the transformer in fp16, located, compared with the bf16 plan
// and the unscaled fp32 image; the command line that reproduces it from ComfyUI's files; every
// remedy, ranked for a T4. diffusers clips T5's hidden states in fp16 but not SD3's streams, so
// the Inf goes on down the stream, the next LayerNorm makes NaN of it, and the output is NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "remedy_helpers.h"
#include "sd3_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

// The feed-forwards' output gain of the reference and the scaled model (see writeTinySd3).
constexpr double kMlpGainSd3Overflow = 16;

const std::string kBlock0Sd3Overflow = "transformer.transformer_blocks.0";

bool inBlocksSd3Overflow(const std::string& name) {
    return name.rfind("transformer.transformer_blocks.", 0) == 0;
}

// The unscaled model (with the MLP gain) and the scaled one. c takes the blocks' peaks past 2^17
// while the embeddings (pos_embed with its positional table, context_embedder) stay below 65504.
struct TinyGainedSd3 {
    using Files = test::Sd3Files;
    static constexpr const char* kTag = "sd3_overflow";
    static Files write(const std::string& root, double c = 1.0) {
        return test::writeTinySd3(root, c, kMlpGainSd3Overflow);
    }
    static bool inBlocks(const std::string& name) { return inBlocksSd3Overflow(name); }
    static bool inEmbeddings(const std::string& name) {
        return name.rfind("transformer.pos_embed", 0) == 0 ||
               name == "transformer.context_embedder";
    }
    static RunConfig config(int steps) {
        return test::tinyRunConfig("a lighthouse on a cliff at dusk", 3, 5.0, 16, 24, steps);
    }
};

// A block's streams as they leave it (its Module points: `block` and `block`.context).
bool isBlockStreamSd3Overflow(const std::string& name) {
    if (!inBlocksSd3Overflow(name)) return false;
    const std::string rest = name.substr(std::string("transformer.transformer_blocks.").size());
    const size_t dot = rest.find('.');
    return dot == std::string::npos || rest.substr(dot) == ".context";
}

// The feed-forwards' outputs (the Layer points ff and ff_context).
bool isFeedForwardSd3Overflow(const std::string& name) {
    const auto ends = [&](const std::string& tail) {
        return name.size() > tail.size() &&
               name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return inBlocksSd3Overflow(name) && (ends(".ff") || ends(".ff_context"));
}

class Sd3Overflow : public test::ScaledOverflowTest<TinyGainedSd3> {};

// The scaled model computes the same function: in fp32 it gives the unscaled model's image. What
// passes fp16's range is the feed-forwards' outputs; gated (the gates are ~0.2) and added to the
// stream, they leave the streams themselves inside it.
TEST_F(Sd3Overflow, TheScaledModelIsTheSameFunctionWithMlpOutputsPastFp16) {
    EXPECT_GT(s_embed, 0.0);
    EXPECT_LT(s_embed * s_c, 65504.0) << "the embeddings must stay inside fp16's range";
    EXPECT_GT(s_blocks * s_c, 131072.0);
    EXPECT_LE(s_blocks * s_c, 262144.0);
    const RunRecord r = runScaledInFp32(ProbeLevel::Layer);
    double ff = 0, streams = 0;
    for (const auto& [name, peak] : test::ditPeaks(r)) {
        if (isFeedForwardSd3Overflow(name)) ff = std::max(ff, peak);
        if (isBlockStreamSd3Overflow(name)) streams = std::max(streams, peak);
    }
    std::printf("  fp32 peaks: feed-forward outputs %.4g, the blocks' output streams %.4g\n", ff,
                streams);
    EXPECT_GT(ff, 131072.0);
    EXPECT_GT(streams, 0.0);
    EXPECT_LT(streams, 65504.0);
}

// The transformer in fp16: block 0's feed-forward output (ff, the writer of the massive
// activations) is the first point past 65504 and rounds to Inf; nothing clips it (diffusers does
// not clip SD3's streams), so the gated Inf reaches block 0's output stream, block 1's norm1
// makes NaN of it, and the NaN reaches proj_out: the latents are NaN from the first step. The
// bf16 plan gives the unscaled model's fp32 image; the fp16 one is all NaN (black when saved).
TEST_F(Sd3Overflow, Fp16GivesANanImageFromInsideABlockAndBf16IsClose) {
    std::unique_ptr<Pipeline> p;
    RunConfig cfg;
    RunRecord bad;
    ASSERT_NO_FATAL_FAILURE(runScaledInFp16(p, cfg, bad, kBlock0Sd3Overflow + ".ff"));
    // In call order: the feed-forward's Inf, block 0's output stream holding it (not clipped to
    // +-65504), and the first NaN, at block 1's norm1 (the LayerNorm of an Inf row).
    const auto order = test::nonFiniteOrder(bad, [](const std::string& name) {
        return name == kBlock0Sd3Overflow + ".ff" || name == kBlock0Sd3Overflow;
    });
    EXPECT_EQ(order, (std::vector<std::string>{"Inf " + kBlock0Sd3Overflow + ".ff",
                                               "Inf " + kBlock0Sd3Overflow,
                                               "NaN transformer.transformer_blocks.1.norm1.norm"}));
    // The text stream overflows the same way (ff_context), and the output is NaN throughout.
    bool contextInf = false, projOutAllNan = false;
    for (const auto& q : bad.probes) {
        if (q.step != 0) continue;
        if (q.name == kBlock0Sd3Overflow + ".context")
            contextInf = q.stats.posInf + q.stats.negInf > 0;
        if (q.name == "transformer.proj_out")
            projOutAllNan = q.stats.count > 0 && q.stats.nan == q.stats.count;
    }
    EXPECT_TRUE(contextInf);
    EXPECT_TRUE(projOutAllNan);
    test::expectFp16BlackAndBf16Clean(*p, cfg, bad, s_reference, kBlock0Sd3Overflow,
                                      kBlock0Sd3Overflow + ".ff");
}

// As a user types it: ComfyUI's files (the T5 given with --text-encoder-3), the transformer in
// fp16, advice for a T4; then the bf16 plan, clean.
TEST_F(Sd3Overflow, TheCommandLineReproducesItFromTheComfyUiFiles) {
    // On a T4 bf16 is emulated: fp32 comes first.
    const std::string text = expectCommandLineOverflow(
        "--model " + s_scaled.dit + " --vae " + s_scaled.ae + " --text-encoder " + s_scaled.clipL +
            " --text-encoder-2 " + s_scaled.clipG + " --text-encoder-3 " + s_scaled.t5 +
            " --prompt 'a lighthouse on a cliff at dusk' --seed 3 --guidance 5 --steps 2"
            " --width 16 --height 24",
        kBlock0Sd3Overflow, kBlock0Sd3Overflow + ".ff");
    // The weights alone already say so, before the run.
    EXPECT_HAS(text, "will overflow");
}

// Each remedy people use, tried on the blocks the bisection keeps and on the whole transformer,
// ranked for a T4 with its image change against the bf16 run.
TEST_F(Sd3Overflow, EachRemedyIsRunAndRankedForAT4) {
    RemedyTable t;
    std::map<std::string, RemedyRow> byAction;
    ASSERT_NO_FATAL_FAILURE(rankRemediesOfScaledFp16(t, byAction));
    // Both blocks' feed-forwards overflow: fixing block 0 alone leaves block 1's to do the same.
    // The embeddings stay in fp16.
    EXPECT_EQ(t.failingBlocks, (std::vector<std::string>{"transformer.transformer_blocks.0",
                                                         "transformer.transformer_blocks.1"}));
    // Scaling by the headroom the bf16 run measured (2^-3: the MLP output fits in fp16 with a
    // bit to spare), the blocks in fp32 or in bf16: each fixes it. Ranked: one rule (the whole
    // transformer scaled) before two; then, the images equal within 0.001, the cheapest on a T4:
    // scale, then fp32, then bf16 (emulated and slow there).
    std::vector<std::string> passing;
    for (const auto& r : t.rows)
        if (r.passed)
            passing.push_back(
                remedyKindName(r.candidate.kind) + "/" + r.candidate.scope +
                (r.candidate.kind == RemedyKind::Format ? formatName(r.candidate.format) : ""));
    EXPECT_EQ(passing, (std::vector<std::string>{"scale/component", "scale/blocks",
                                                 "format/blocksfp32", "format/blocksbf16"}));
    EXPECT_EQ(byAction.at("scale/component").rank, 1);
    EXPECT_EQ(byAction.at("scale/component").candidate.scaleBits, 3);
    EXPECT_EQ(byAction.at("scale/blocks").candidate.scaleBits, 3);
    EXPECT_NE(byAction.at("format/blocksbf16").cost.find("no bf16 tensor cores"), std::string::npos)
        << byAction.at("format/blocksbf16").cost;
    for (const char* k : {"scale/component", "scale/blocks", "format/blocksfp32"})
        EXPECT_LT(byAction.at(k).rank, byAction.at("format/blocksbf16").rank) << k;
    for (const auto& r : t.rows)
        if (r.passed) EXPECT_LT(r.outcome.difference, 0.01) << remedyAction(r.candidate);
    // Keeping the stream in fp32 does not help: the feed-forward output itself is past 65504
    // before it is added to the stream. Clipping keeps step 0 finite (see below) but not the run.
    for (const char* k :
         {"fp32-residual/component", "fp32-residual/blocks", "clamp/component", "clamp/blocks"}) {
        EXPECT_FALSE(byAction.at(k).passed) << k;
        EXPECT_GT(byAction.at(k).outcome.nonFinite, 0) << k;
        EXPECT_GT(byAction.at(k).rank, 4) << k;
    }
}

// What clipping does here: the clip holds the streams at +-65504 where the feed-forwards' gated
// Inf lands, so step 0 ends finite, but its velocity is so far off that at step 1 the latents
// take pos_embed's projection (c times larger, left unclipped) past 65504.
TEST_F(Sd3Overflow, ClippingKeepsTheFirstStepFiniteButNotTheSecond) {
    RunConfig cfg = config();
    cfg.probeLevel = ProbeLevel::Op;
    cfg.plan = PrecisionPlan::parse("transformer=fp16,transformer=clamp");
    const RunRecord r = Pipeline::load(s_scaled.folder, cfg.plan, kCpuPipeline)->run(cfg);
    EXPECT_EQ(r.verdict, "nan/inf") << r.verdictExplanation;
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].latent.finite, r.steps[0].latent.count);
    EXPECT_GT(r.steps[1].latent.count - r.steps[1].latent.finite, 0);
    // At step 0 the feed-forwards still make Inf (a Layer point, not clipped); the streams and
    // the output are clipped or finite.
    std::string firstAtStep1;
    for (const auto& q : r.probes) {
        if (q.name.rfind("transformer.", 0) != 0) continue;
        if (q.step == 0 && q.stats.nonFinite() > 0)
            EXPECT_TRUE(isFeedForwardSd3Overflow(q.name) ||
                        q.name.find("ff_gated") != std::string::npos)
                << q.name;
        if (q.step == 0 && isBlockStreamSd3Overflow(q.name)) {
            EXPECT_EQ(q.stats.nonFinite(), 0) << q.name;
            EXPECT_LE(q.stats.absMax, 65504.0) << q.name;
        }
        if (q.step == 1 && q.stats.nonFinite() > 0 && firstAtStep1.empty()) firstAtStep1 = q.name;
    }
    EXPECT_EQ(firstAtStep1, "transformer.pos_embed.proj");
}

}  // namespace
}  // namespace hs
