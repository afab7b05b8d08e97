// Anima as users have it: a tiny Anima-shaped pipeline (Qwen3 + text conditioner + Cosmos DiT +
// Qwen-Image VAE) as a diffusers modular folder and as ComfyUI's file set, run end to end; the
// T4 post-mortem's failure (NaN latents from the first step with the transformer in fp16)
// reproduced on a model whose residual stream is scaled past fp16's range.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

#include "anima_fixture.h"
#include "diagnosis/device_info.h"
#include "io/safetensors.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "remedy_helpers.h"
#include "report/report_bundle.h"
#include "report/report_types.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

struct TinyAnima {
    using Files = test::AnimaFiles;
    static constexpr const char* kTag = "anima";
    static Files write(const std::string& root) { return test::writeTinyAnima(root); }
    static RunConfig config(int steps) {
        return test::tinyRunConfig("masterpiece, best quality, 1girl, solo, city lights", 42, 4.0,
                                   32, 16, steps);
    }
    // ComfyUI's set: the DiT file opened, the Qwen3 and the VAE given; tokenizers beside.
    static test::TinyPipeline layouts(const Files& f) {
        return {f.folder, f.dit, test::comfySetOf(f.vae, f.qwen)};
    }
};

class AnimaPipeline : public test::TinyPipelineTest<TinyAnima> {
protected:
    static ModelFiles comfySet(const test::AnimaFiles& f) { return TinyAnima::layouts(f).comfySet; }
};

// ---- the suites every tiny pipeline runs (pipeline_fixture.h) -----------------------------------

// The tiny VAE's factor 2 x the 2 x 2 patches; the conditioner pads its output to
// min_sequence_length 512 tokens of width 24.
const test::TinyPipelineCase kTinyAnima =
    test::TinyPipelineCase::of<TinyAnima>("Anima")
        .folderHolds({"text_encoder", "text_conditioner", "transformer", "vae"}, 4)
        .defaultsTo(50, 4.0, true)
        .fileDetected(4, "(Anima)")
        .textEmbeddingOf(512 * 24);

HS_CASES(Anima, TinyPipelineLayouts, kTinyAnima);
HS_CASES(Anima, TinyPipelineStreaming, kTinyAnima);
HS_CASES(Anima, TinyPipelineVae, kTinyAnima);

// ---- Anima's own --------------------------------------------------------------------------------

// diffusers' Anima loop: sigmas linspace(1, 1/N, N) shifted by 3 (sigma' = 3s / (1 + 2s)), the
// model called at t / 1000 = sigma', Euler steps x += (sigma'_{i+1} - sigma'_i) v.
TEST_F(AnimaPipeline, TheScheduleIsShiftedAndGuidanceUsesTheNegativePrompt) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
    ASSERT_NO_FATAL_FAILURE(test::expectScheduleShiftedByThree(p->run(config(4)), 4, 0.25));
    RunConfig c = config();
    const RunRecord empty = p->run(c);
    c.negativePrompt = "lowres, bad anatomy";
    const RunRecord negative = p->run(c);
    EXPECT_GT(maxDifference(empty.steps[0].latentValues, negative.steps[0].latentValues), 1e-4f);
    // Guidance 1 runs the prompt alone: the negative prompt changes nothing.
    c.guidance = 1.0;
    const RunRecord unguided = p->run(c);
    c.negativePrompt.clear();
    EXPECT_EQ(maxDifference(unguided.steps[0].latentValues, p->run(c).steps[0].latentValues), 0.f);
    // The prompt matters (the conditioner's cross-attention reads the Qwen3 states).
    c.prompt = "the sea at dawn";
    EXPECT_GT(maxDifference(unguided.steps[0].latentValues, p->run(c).steps[0].latentValues),
              1e-5f);
}

TEST_F(AnimaPipeline, EmptyAndHugePromptsRun) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
    RunConfig c = config(1);
    c.prompt.clear();
    EXPECT_EQ(p->run(c).verdict, "ok");
    c.prompt = std::string(200000, 'a') + " the end";  // cut to 512 tokens by both tokenizers
    const RunRecord r = p->run(c);
    EXPECT_EQ(r.verdict, "ok") << r.error;
    EXPECT_EQ(r.textEmbedding.count, 512 * 24);
}

TEST_F(AnimaPipeline, PartsThatDoNotFitAreRefusedByName) {
    const std::string root = s_root + "/bad";
    auto f = test::writeTinyAnima(root);

    // The DiT file without its adapter: the text conditioner is missing.
    {
        WeightMap dit;
        for (auto& [k, t] : test::openWeights(f.dit))
            if (k.rfind("net.llm_adapter.", 0) != 0) dit.emplace(k, t);
        const std::string path = test::writeWeights(root, "dit-only.safetensors", dit);
        fs::copy(f.tokenizer, root + "/tokenizer", fs::copy_options::recursive);
        fs::copy(f.t5Tokenizer, root + "/t5_tokenizer", fs::copy_options::recursive);
        const std::string e = errorOf<PipelineError>(
            [&] { Pipeline::load(path, comfySet(f), PrecisionPlan(), kCpuPipeline); });
        EXPECT_NE(e.find("text_conditioner"), std::string::npos) << e;
    }
    // A Qwen3 narrower than the conditioner's source width.
    {
        const std::string narrow = test::writeTinyQwen3(root + "/narrow_qwen", 16);
        ModelFiles m;
        m.textEncoder = narrow;
        const std::string e = errorOf<PipelineError>(
            [&] { Pipeline::load(f.folder, m, PrecisionPlan(), kCpuPipeline); });
        EXPECT_NE(e.find("source_dim"), std::string::npos) << e;
        EXPECT_NE(e.find("32"), std::string::npos) << e;
        EXPECT_NE(e.find("16"), std::string::npos) << e;
    }
    // (A VAE of another family: TinyPipelineVae above.)
    // No T5 tokenizer anywhere near the set.
    {
        const std::string lone = root + "/lone";
        fs::create_directories(lone);
        fs::copy_file(f.dit, lone + "/anima.safetensors");
        fs::copy(f.tokenizer, lone + "/tokenizer", fs::copy_options::recursive);
        const std::string e = errorOf<PipelineError>([&] {
            Pipeline::load(lone + "/anima.safetensors", comfySet(f), PrecisionPlan(), kCpuPipeline);
        });
        EXPECT_NE(e.find("--tokenizer-2"), std::string::npos) << e;
    }
    // No Qwen tokenizer beside the set: the bundled Qwen2 one is taken, whose 151,646 ids the
    // tiny Qwen3's 300 embeddings cannot take.
    {
        const std::string bare = root + "/bare";
        fs::create_directories(bare);
        fs::copy_file(f.dit, bare + "/anima.safetensors");
        fs::copy_file(f.qwen, bare + "/qwen_3_06b_base.safetensors");
        fs::copy(f.t5Tokenizer, bare + "/t5_tokenizer", fs::copy_options::recursive);
        ModelFiles m = comfySet(f);
        m.textEncoder = bare + "/qwen_3_06b_base.safetensors";
        const std::string e = errorOf<PipelineError>(
            [&] { Pipeline::load(bare + "/anima.safetensors", m, PrecisionPlan(), kCpuPipeline); });
        EXPECT_NE(e.find("tokenizers/qwen2"), std::string::npos) << e;
        EXPECT_NE(e.find("not a pair"), std::string::npos) << e;
    }
}

// The tiny Anima scaled like the real one: every writer into the DiT's residual stream is
// multiplied by c (the function is the same, the stream c times larger, as a bf16-trained
// model's massive activations), c the power of two that takes the blocks' outputs past 2^17
// while the patch embedding stays inside fp16's range. Written once; `reference` is the
// unscaled model's fp32 run of `cfg`.
const test::AnimaFiles& scaledAnima(const std::string& root, const test::AnimaFiles& plain,
                                    const RunConfig& cfg, RunRecord* reference = nullptr) {
    static std::optional<test::AnimaFiles> scaled;
    static RunRecord ref;
    if (!scaled) {
        RunConfig c0 = cfg;
        c0.plan = PrecisionPlan();
        c0.probeLevel = ProbeLevel::Op;
        ref = Pipeline::load(plain.folder, PrecisionPlan(), kCpuPipeline)->run(c0);
        double embed = 0, blocks = 0;
        for (const auto& [name, peak] : test::ditPeaks(ref)) {
            if (name.rfind("transformer.transformer_blocks.", 0) == 0)
                blocks = std::max(blocks, peak);
            if (name == "transformer.patch_embed") embed = peak;
        }
        EXPECT_GT(blocks, 0.0);
        const double c = test::residualScaleFor(blocks);
        std::printf("  residual scale c = %g: patch_embed %.3g, blocks up to %.3g\n", c, embed * c,
                    blocks * c);
        EXPECT_LT(embed * c, 65504.0) << "the stream must grow inside the blocks";
        scaled = test::writeTinyAnima(root + "/scaled", c);
    }
    if (reference) *reference = ref;
    return *scaled;
}

// The T4 post-mortem: with the transformer in fp16 the latents are NaN from the first step
// although the text embeddings are clean; the first non-finite value is inside a block; bf16
// for the transformer (and fp32 for the VAE, the article's plan) gives the unscaled model's
// image; the VAE alone in fp16 is checked apart; the advice for a T4 says bf16 is emulated there
// and offers the plan that works.
TEST_F(AnimaPipeline, TheT4PostMortemIsReproducedLocatedAndFixed) {
    RunConfig cfg = config(2);
    cfg.probeLevel = ProbeLevel::Op;
    RunRecord reference;
    const auto& scaled = scaledAnima(s_root, s_files, cfg, &reference);
    cfg.plan = PrecisionPlan::parse("transformer=fp16");
    auto p = Pipeline::load(scaled.folder, cfg.plan, kCpuPipeline);
    const RunRecord bad = p->run(cfg);
    ASSERT_NO_FATAL_FAILURE(test::expectNanFromTheFirstStep(bad));
    EXPECT_EQ(bad.firstNonFinite->at.name.rfind("transformer.transformer_blocks.", 0), 0u)
        << bad.firstNonFinite->at.name;
    ASSERT_TRUE(bad.savedImage.has_value());
    EXPECT_EQ(*std::max_element(bad.savedImage->rgb.begin(), bad.savedImage->rgb.end()), 0)
        << "a pure black PNG";

    cfg.plan = PrecisionPlan::parse("transformer=bf16,vae=fp32");
    p->setPlan(cfg.plan);
    const RunRecord fixed = p->run(cfg);
    EXPECT_EQ(fixed.verdict, "ok") << fixed.verdictExplanation;
    EXPECT_FALSE(fixed.firstNonFinite.has_value());
    // bf16 rounds the weights and activations; the picture stays the unscaled fp32 one.
    ASSERT_TRUE(fixed.savedImage && reference.savedImage);
    double diff = 0;
    for (size_t i = 0; i < fixed.savedImage->rgb.size(); ++i)
        diff += std::abs(int(fixed.savedImage->rgb[i]) - int(reference.savedImage->rgb[i]));
    EXPECT_LT(diff / double(fixed.savedImage->rgb.size()), 8.0);

    cfg.plan = PrecisionPlan::parse("transformer=bf16,vae=fp16");
    p->setPlan(cfg.plan);
    const RunRecord vae16 = p->run(cfg);
    std::printf("  VAE alone in fp16: %s (%s)\n", vae16.verdict.c_str(),
                vae16.verdictExplanation.c_str());
    for (const auto& s : vae16.steps) EXPECT_EQ(s.latent.finite, s.latent.count);

    Report report = makeReport({makeReportRun("transformer=fp16", bad),
                                makeReportRun("transformer=bf16,vae=fp32", fixed)});
    addAdvice(report, targetGpu("t4"));
    ASSERT_TRUE(report.advice.has_value());
    const Advice& a = *report.advice;
    EXPECT_TRUE(a.fp16IsTheProblem);
    ASSERT_FALSE(a.fixes.empty());
    std::printf("  advice: %s\n", a.headline.c_str());
    for (const auto& f : a.fixes)
        std::printf("    %d. %s | %s | %s\n", f.rank, f.action.c_str(), f.cost.c_str(),
                    f.planText.c_str());
    bool emulated = false;
    for (const auto& f : a.fixes)
        emulated |= f.format == Format::BF16 &&
                    f.cost.find("bf16 is emulated and slow") != std::string::npos;
    EXPECT_TRUE(emulated);
    // The first fix, applied, runs clean.
    ASSERT_FALSE(a.fixes[0].planText.empty());
    cfg.plan = PrecisionPlan::parse(a.fixes[0].planText);
    p->setPlan(cfg.plan);
    EXPECT_FALSE(p->run(cfg).firstNonFinite.has_value()) << a.fixes[0].planText;
}

// The remedies on the scaled Anima, ranked against bf16: what ComfyUI does for Cosmos/Anima (the
// residual stream in fp32) next to the others.
TEST_F(AnimaPipeline, EveryRemedyIsRankedAgainstBf16) {
    RunConfig cfg = config(2);
    const auto& scaled = scaledAnima(s_root, s_files, cfg);
    cfg.modelDir = scaled.folder;
    cfg.plan = PrecisionPlan::parse("transformer=fp16");
    RemedyTable t;
    const auto row = test::rankedRemedies(cfg, Format::BF16, &t);
    ASSERT_EQ(t.rows.size(), 8u);
    EXPECT_TRUE(row.at("format/blocksbf16").passed);
    EXPECT_TRUE(row.at("scale/component").passed);
    // In this two-block model every writer into the stream is scaled by c, so the attention and
    // MLP outputs are past 65504 before they reach the stream: an fp32 stream cannot help here,
    // where in the real model (28 blocks) the stream grows by accumulating moderate writes.
    EXPECT_FALSE(row.at("fp32-residual/component").passed);
    EXPECT_GT(row.at("fp32-residual/component").outcome.nonFinite, 0);
    EXPECT_TRUE(t.rows.front().passed);
}

// The same as a user types it: ComfyUI's files, the transformer in fp16, advice for a T4;
// then the plan the post-mortem ended with.
TEST_F(AnimaPipeline, TheCommandLineReproducesItFromTheComfyUiFiles) {
    const auto& f = scaledAnima(s_root, s_files, config(2));
    const std::string text = test::expectTheCommandLineFailsInFp16AndNotUnder(
        "--model " + f.dit + " --text-encoder " + f.qwen + " --vae " + f.vae +
            " --prompt 'masterpiece, best quality, 1girl, solo, city lights'"
            " --seed 42 --steps 2 --width 32 --height 16",
        s_root + "/cli", "transformer=bf16,vae=fp32");
    EXPECT_NE(text.find("transformer.transformer_blocks."), std::string::npos) << text;
}

// Cosmos-Predict2-2B-Text2Image: the same DiT behind a T5 encoder, sampled as
// Cosmos2TextToImagePipeline does (Karras sigmas 80 -> 0.002, the last step held, EDM-style
// preconditioning, guidance cond + g (cond - uncond) on the x0 estimates).
TEST(Cosmos2Pipeline, RunsTheReferenceLoop) {
    test::ScopedDir dir("cosmos2");
    const std::string folder = test::writeTinyCosmos2(dir.path);
    auto p = Pipeline::load(folder, PrecisionPlan(), kCpuPipeline);
    std::vector<std::string> names;
    for (const auto& c : p->components()) names.push_back(c.name);
    EXPECT_EQ(names, (std::vector<std::string>{"text_encoder", "transformer", "vae"}));
    EXPECT_EQ(p->defaults().steps, 35);
    EXPECT_EQ(p->defaults().guidance, 7.0);
    const RunConfig c = test::tinyRunConfig("a robot arm picks up a red cube", 3, 7.0, 16, 16, 3);
    const RunRecord r = p->run(c);
    EXPECT_EQ(r.verdict, "ok") << r.verdictExplanation << r.error;
    ASSERT_EQ(r.steps.size(), 3u);
    // Karras: (80^(1/7) + ramp (0.002^(1/7) - 80^(1/7)))^7 over ramp 0, 0.5, 1.
    const double hi = std::pow(80.0, 1 / 7.0), lo = std::pow(0.002, 1 / 7.0);
    EXPECT_NEAR(r.steps[0].sigma, 80.0, 1e-4);
    EXPECT_NEAR(r.steps[1].sigma, std::pow(hi + 0.5 * (lo - hi), 7.0), 1e-4);
    EXPECT_NEAR(r.steps[2].sigma, 0.002, 1e-7);
    // The last step's sigma is held (final_sigmas_type "sigma_min"): it does not move x.
    EXPECT_EQ(maxDifference(r.steps[2].latentValues, r.steps[1].latentValues), 0.f);
    EXPECT_EQ(r.textEmbedding.count, 512 * 24);
    // No negative prompt given: NVIDIA's default one guides, so an explicit empty-looking one
    // (a single space) changes the picture.
    RunConfig other = c;
    other.negativePrompt = " ";
    EXPECT_GT(maxDifference(p->run(other).steps[0].latentValues, r.steps[0].latentValues), 1e-4f);
    // A scheduler config without Karras sigmas cannot sample this model.
    auto sched = readJsonFile(folder + "/scheduler/scheduler_config.json");
    sched["use_karras_sigmas"] = false;
    std::ofstream(folder + "/scheduler/scheduler_config.json") << sched.dump();
    const std::string e =
        errorOf<PipelineError>([&] { Pipeline::load(folder, PrecisionPlan(), kCpuPipeline); });
    EXPECT_NE(e.find("use_karras_sigmas"), std::string::npos) << e;
}

}  // namespace
}  // namespace hs
