#pragma once
// What the tiny-pipeline tests share (Anima, Qwen-Image, FLUX.1, SD): one fixture that writes a
// family's tiny pipeline once per test suite, the run comparisons they all make, and the
// parameterised suites (their TEST_Ps in test_tiny_pipelines.cpp) that each family's pipeline
// test file instantiates with its data:
//   TinyPipelineLayouts    the diffusers folder and ComfyUI's file set give the same image
//   TinyPipelineStreaming  a budget below the weights streams the transformer: the same latents
//   TinyPipelineVae        an SD VAE given for the pipeline's Qwen-Image one is refused
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "../records/run_config_of.h"
#include "pipeline/pipeline.h"
#include "remedy_helpers.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs::test {

const torch::Device kCpuPipeline(torch::kCPU);

// The largest |a - b|; INFINITY when the sizes differ.
float maxDifference(const std::vector<float>& a, const std::vector<float>& b);

// The same run twice (another layout of the same weights, a streamed load): every step's sigma
// and latents, bit for bit, and the same saved image.
void expectSameRun(const RunRecord& a, const RunRecord& b, const std::string& what);

// A run NaN from its first step while its text path stayed clean: the verdict "nan/inf", the text
// embedding finite, NaN in step 0's latents, a first non-finite point recorded. Call it through
// ASSERT_NO_FATAL_FAILURE before reading the steps or the point.
void expectNanFromTheFirstStep(const RunRecord& r);

// The run took `steps` steps on the flow-matching schedule shifted by 3: s spaced evenly from 1 to
// `sLast`, sigma = 3 s / (1 + 2 s), the model called at t = 1000 sigma. Call it through
// ASSERT_NO_FATAL_FAILURE before reading the steps.
void expectScheduleShiftedByThree(const RunRecord& r, int steps, double sLast);

// Whether one of the run's notes contains `part`.
bool hasNote(const RunRecord& r, const std::string& part);

// The probe `name`'s element count at `step`; -1 when it was not recorded.
int64_t probeCount(const RunRecord& r, const std::string& name, int step);

// The largest |x| each DiT point ("transformer.*") reached at step 0 of `r`, by probe name.
std::map<std::string, double> ditPeaks(const RunRecord& r);

// The power of two c that takes a residual stream peaking at `peak` past 2^17 (a model scaled by
// c overflows fp16 there, as a bf16-trained model's massive activations do).
double residualScaleFor(double peak);

// Mean |a - b| over the saved 8-bit images' values; INFINITY without two images of one size.
double meanPixelDifference(const RunRecord& a, const RunRecord& b);

// The bytes of the .safetensors files under `folder`.
uint64_t safetensorsBytes(const std::string& folder);

// The pipeline at `folder` under the largest memory budget (in steps of 2% of its weights) that
// no longer holds it whole, so that it streams; null (and a failure) when a budget refuses it
// before it streams or none makes it stream.
std::unique_ptr<Pipeline> loadStreaming(const std::string& folder);

// The fp16 failure as a user types it: `generate <args>` (ComfyUI's files, the prompt, the size)
// with the transformer in fp16 and advice for a T4 exits 1 naming the NaN/Inf image and T4's
// emulated bf16, its record written beside the image under `out`; under `fixedPlan` it exits 0
// with a clean image. Returns what the fp16 run printed.
std::string expectTheCommandLineFailsInFp16AndNotUnder(const std::string& args,
                                                       const std::string& out,
                                                       const std::string& fixedPlan);

// The fp16 run `bad` of `p` (under `cfg`) failed as fp16 does: no finite fp16 value past 65504
// (it rounds to Inf) and a black saved image. Then under transformer=bf16 the run is clean, the
// first value past 65504 is at `firstOver` and `block` holds some; the mean pixel differences to
// `reference` are printed, bf16's below 3 and fp16's above 50.
void expectFp16BlackAndBf16Clean(Pipeline& p, RunConfig cfg, const RunRecord& bad,
                                 const RunRecord& reference, const std::string& block,
                                 const std::string& firstOver);

// The default prompt (kDefaultPrompt) at `p`'s default size: `steps` steps from `seed`.
RunConfig defaultRunOf(const Pipeline& p, uint64_t seed, int steps);

// runConfigOf keeping its latents.
RunConfig tinyRunConfig(const std::string& prompt, uint64_t seed, double guidance, int width,
                        int height, int steps);

// ComfyUI's set beside a denoiser file: its VAE and text encoders given.
ModelFiles comfySetOf(const std::string& vae, const std::string& textEncoder,
                      const std::string& textEncoder2 = "");

// A family's tiny pipeline in the layouts users hold.
struct TinyPipeline {
    std::string folder;  // the diffusers folder
    std::string dit;     // the denoiser's single file, completed by `comfySet`
    ModelFiles comfySet;
};

// A family's tiny pipeline, written once per test suite under a temporary folder and removed
// after it. `Tiny` gives:
//   using Files = ...;                         what its writer returns
//   static constexpr const char* kTag;         the temporary folder's tag
//   static Files write(const std::string& root);
//   static RunConfig config(int steps);        the runs the tests start from
//   static TinyPipeline layouts(const Files&); the folder and the single file with its set
template <class Tiny>
class TinyPipelineTest : public ::testing::Test {
protected:
    using Files = typename Tiny::Files;

    static void SetUpTestSuite() {
        s_root = tempDir(Tiny::kTag);
        s_files = Tiny::write(s_root + "/plain");
    }
    static void TearDownTestSuite() {
        std::error_code ec;
        std::filesystem::remove_all(s_root, ec);
    }

    static RunConfig config(int steps = 2) { return Tiny::config(steps); }

    static inline std::string s_root;
    static inline Files s_files;
};

// A family's tiny pipeline written once with its MLP gain (s_files, the reference) and once with
// its residual streams scaled by c (s_scaled), c the power of two that takes the blocks' peaks of
// the reference's fp32 run (Op probes, s_reference) past 2^17 (residualScaleFor): the fp16
// failure of a bf16-trained model. `Tiny` is as TinyPipelineTest takes it, and gives:
//   static Files write(const std::string& root, double c);  the model scaled by c (write(root)
//                                                             is the reference, c = 1)
//   static bool inBlocks(const std::string& point);      the points s_blocks is the peak of
//   static bool inEmbeddings(const std::string& point);  the points s_embed is the peak of
template <class Tiny>
class ScaledOverflowTest : public TinyPipelineTest<Tiny> {
protected:
    using Base = TinyPipelineTest<Tiny>;

    static void SetUpTestSuite() {
        Base::SetUpTestSuite();
        RunConfig c = Base::config();
        c.probeLevel = ProbeLevel::Op;
        s_reference = Pipeline::load(Base::s_files.folder, PrecisionPlan(), kCpuPipeline)->run(c);
        for (const auto& [name, peak] : ditPeaks(s_reference)) {
            if (Tiny::inBlocks(name)) s_blocks = std::max(s_blocks, peak);
            if (Tiny::inEmbeddings(name)) s_embed = std::max(s_embed, peak);
        }
        s_c = residualScaleFor(s_blocks);
        std::printf("  residual scale c = %g: embeddings up to %.4g, blocks up to %.4g\n", s_c,
                    s_embed * s_c, s_blocks * s_c);
        s_scaled = Tiny::write(Base::s_root + "/scaled", s_c);
    }

    // The scaled model's run in fp32 with `level` probes: no failure, and the unscaled model's
    // image (mean pixel difference under 0.05).
    static RunRecord runScaledInFp32(ProbeLevel level) {
        RunConfig cfg = Base::config();
        cfg.probeLevel = level;
        const RunRecord r =
            Pipeline::load(s_scaled.folder, PrecisionPlan(), kCpuPipeline)->run(cfg);
        EXPECT_EQ(r.verdict, "ok") << r.verdictExplanation;
        const double d = meanPixelDifference(r, s_reference);
        std::printf(
            "  the scaled model's fp32 image to the unscaled one's: mean |difference| %.4f\n", d);
        EXPECT_LT(d, 0.05);
        return r;
    }

    // The scaled model's run with the transformer in fp16 (`cfg`, Op probes, run by `p`): NaN from
    // the first step, step 0's latents all NaN; the first non-finite point is `firstInf` at step
    // 0, an Inf (no NaN yet).
    static void runScaledInFp16(std::unique_ptr<Pipeline>& p, RunConfig& cfg, RunRecord& bad,
                                const std::string& firstInf) {
        cfg = Base::config();
        cfg.probeLevel = ProbeLevel::Op;
        cfg.plan = PrecisionPlan::parse("transformer=fp16");
        p = Pipeline::load(s_scaled.folder, cfg.plan, kCpuPipeline);
        bad = p->run(cfg);
        ASSERT_NO_FATAL_FAILURE(expectNanFromTheFirstStep(bad));
        EXPECT_EQ(bad.steps[0].latent.nan, bad.steps[0].latent.count);  // all NaN
        ASSERT_TRUE(bad.firstNonFinite.has_value());
        const auto& first = bad.firstNonFinite->at;
        std::printf("  first non-finite: %s, step %d (+Inf %lld, -Inf %lld, NaN %lld)\n",
                    first.name.c_str(), first.step, (long long)first.stats.posInf,
                    (long long)first.stats.negInf, (long long)first.stats.nan);
        EXPECT_EQ(first.name, firstInf);
        EXPECT_EQ(first.step, 0);
        EXPECT_GT(first.stats.posInf + first.stats.negInf, 0);
        EXPECT_EQ(first.stats.nan, 0);
    }

    // Every remedy tried on the scaled model's fp16 failure (8 rows, each run without an error),
    // ranked for a T4 against the bf16 run: the table and its rows by "remedy/scope".
    static void rankRemediesOfScaledFp16(RemedyTable& t, std::map<std::string, RemedyRow>& rows) {
        RunConfig cfg = Base::config();
        cfg.modelDir = s_scaled.folder;
        cfg.plan = PrecisionPlan::parse("transformer=fp16");
        rows = rankedRemedies(cfg, Format::BF16, &t);
        ASSERT_NO_FATAL_FAILURE(expectEveryRemedyRan(t, 8));
    }

    // The scaled model's failure as a user types it (`args`: its files and the run), through
    // expectTheCommandLineFailsInFp16AndNotUnder with the transformer in bf16 as the fix: the
    // first Inf at `firstInf` in `block` at step 0 is named, and for a T4 (bf16 emulated) fp32 is
    // advised first, bf16 second. Returns what the fp16 run printed.
    static std::string expectCommandLineOverflow(const std::string& args, const std::string& block,
                                                 const std::string& firstInf) {
        const std::string text = expectTheCommandLineFailsInFp16AndNotUnder(
            args, Base::s_root + "/cli", "transformer=bf16");
        EXPECT_HAS(text,
                   "Inf first at " + firstInf + " (block " + block + ", step 0, fp16 emulated)");
        EXPECT_HAS(text, "1. run the transformer in fp32");
        EXPECT_HAS(text, "2. run the transformer in bf16");
        return text;
    }

    static inline typename Tiny::Files s_scaled;
    static inline RunRecord s_reference;
    static inline double s_embed = 0, s_blocks = 0, s_c = 1;
};

// The first non-finite values of step 0's DiT points ("transformer.*") in call order: each point
// `infAt` names that holds an Inf ("Inf <name>"), and the first point of each run of NaN points
// ("NaN <name>"); at most `n`.
std::vector<std::string> nonFiniteOrder(const RunRecord& r,
                                        const std::function<bool(const std::string&)>& infAt,
                                        size_t n = 3);

// ---- the parameterised suites ----------------------------------------------------------------

// What a family's tiny pipeline is, for the suites below.
struct TinyPipelineCase {
    // The pipeline `Tiny` (as TinyPipelineTest takes it) and its two-step run.
    template <class Tiny>
    static TinyPipelineCase of(const std::string& label) {
        return TinyPipelineCase(
            label, [](const std::string& root) { return Tiny::layouts(Tiny::write(root)); },
            [] { return Tiny::config(2); });
    }
    TinyPipelineCase(std::string label, std::function<TinyPipeline(const std::string&)> write,
                     std::function<RunConfig()> config);
    TinyPipelineCase& runWith(std::function<RunConfig()> config);
    // The folder as loaded: its components, size multiple and defaults.
    TinyPipelineCase& folderHolds(std::vector<std::string> components, int sizeMultiple);
    TinyPipelineCase& defaultsTo(int steps, double guidance, bool negativePrompt);
    // The single file: at least `parts` parts detected, the first naming `as`.
    TinyPipelineCase& fileDetected(size_t parts, const std::string& as);
    // The folder's run: a text embedding of `count` values.
    TinyPipelineCase& textEmbeddingOf(int64_t count);
    // The folder's run: two steps of latents of `channels` x `height` x `width`.
    TinyPipelineCase& latentsAre(int channels, int height, int width);

    std::string label;
    std::function<TinyPipeline(const std::string& root)> write;
    std::function<RunConfig()> config;
    std::vector<std::string> components;
    int sizeMultiple = 0, defaultSteps = 0;
    double defaultGuidance = 0;
    bool negativePrompt = false;
    size_t detectedParts = 0;
    std::string detectedAs;
    int64_t textEmbeddingCount = -1;  // -1: not checked
    std::vector<int> latentShape;     // {channels, height, width}; empty: not checked
};

class TinyPipelineSuite : public ::testing::TestWithParam<TinyPipelineCase> {
protected:
    // The case's pipeline, written on first use and removed after the suite.
    const TinyPipeline& pipeline();
    static void TearDownTestSuite();
};

class TinyPipelineLayouts : public TinyPipelineSuite {};
class TinyPipelineStreaming : public TinyPipelineSuite {};
class TinyPipelineVae : public TinyPipelineSuite {};

}  // namespace hs::test

namespace hs {
// What a pipeline test file reads unqualified: the suites, as INSTANTIATE_TEST_SUITE_P takes
// them, and the run comparisons.
using test::errorOf;
using test::expectSameRun;
using test::hasNote;
using test::kCpuPipeline;
using test::maxDifference;
using test::probeCount;
using test::TinyPipelineLayouts;
using test::TinyPipelineStreaming;
using test::TinyPipelineVae;
}  // namespace hs
