// The demo model's machinery on random weights: the residual scaling preserves the function in
// fp32/bf16 and breaks fp16; an exported folder loads and runs as a pipeline.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "demo/caption_grammar.h"
#include "demo/demo_config.h"
#include "demo/demo_export.h"
#include "demo/massive_activations.h"
#include "demo/world.h"
#include "families/clip/clip_text_model.h"
#include "families/flux/flux_latents.h"
#include "families/flux/flux_transformer.h"
#include "families/vae/autoencoder_kl.h"
#include "pipeline/pipeline.h"
#include "test_util.h"

using namespace hs;
using namespace hs::demo;

namespace {

torch::Device cpuDemoModel() {
    return torch::Device(torch::kCPU);
}

FluxInputs demoFluxInputs(int64_t batch) {
    torch::manual_seed(3);
    FluxInputs in;
    in.hiddenStates = torch::randn({batch, 64, 16});
    in.encoderHiddenStates = torch::randn({batch, kTextLength, 128});
    in.pooledProjections = torch::randn({batch, 128});
    in.timestep = torch::full({batch}, 0.7f);
    in.imgIds = prepareLatentImageIds(8, 8);
    in.txtIds = prepareTextIds(kTextLength);
    return in;
}

double blockAbsMax(ProbeContext& p, const std::string& prefix) {
    double m = 0;
    for (const auto& r : p.records())
        if (r.name.rfind(prefix, 0) == 0) m = std::max(m, r.stats.absMax);
    return m;
}

}  // namespace

TEST(MassiveActivations, FluxScalingKeepsTheFunctionAndOverflowsFp16) {
    torch::manual_seed(1);
    FluxTransformer fresh(FluxConfig::fromJson(transformerConfig()));
    nn::initialiseForTraining(*fresh);
    WeightMap w = stateOf(*fresh), scaled;
    for (auto& kv : w) scaled[kv.first] = kv.second.detach().clone();
    const auto keys = scaleFluxResidual(scaled, 4096);
    EXPECT_EQ(keys.size(), 2u * (2 + 3 * 4 + 3));  // embedders, 4 writers x 3 double, 3 single
    torch::NoGradGuard g;
    auto in = demoFluxInputs(2);
    ProbeContext p0(PrecisionPlan::parse("transformer=fp32"), cpuDemoModel(), ProbeLevel::Module);
    ProbeContext p1(PrecisionPlan::parse("transformer=fp32"), cpuDemoModel(), ProbeLevel::Module);
    auto a = loadFluxTransformer(transformerConfig(), w, p0.policy())->forward(in, p0);
    auto b = loadFluxTransformer(transformerConfig(), scaled, p1.policy())->forward(in, p1);
    EXPECT_LT(test::relErr(b, a), 1e-4);
    const double r0 = blockAbsMax(p0, "transformer.transformer_blocks.0");
    const double r1 = blockAbsMax(p1, "transformer.transformer_blocks.0");
    EXPECT_NEAR(r1 / r0, 4096.0, 4096.0 * 0.01);

    ProbeContext pb(PrecisionPlan::parse("transformer=bf16"), cpuDemoModel(), ProbeLevel::Module);
    auto c = loadFluxTransformer(transformerConfig(), scaled, pb.policy())->forward(in, pb);
    EXPECT_LT(test::relErr(c.to(torch::kFloat32), a), 0.05);
    EXPECT_FALSE(pb.firstNonFinite().has_value());

    // Large enough that even random weights pass 65504 in the first block.
    WeightMap huge;
    for (auto& kv : w) huge[kv.first] = kv.second.detach().clone();
    scaleFluxResidual(huge, 65536);
    ProbeContext ph(PrecisionPlan::parse("transformer=fp16"), cpuDemoModel(), ProbeLevel::Layer);
    auto d = loadFluxTransformer(transformerConfig(), huge, ph.policy())->forward(in, ph);
    ASSERT_TRUE(ph.firstNonFinite().has_value());
    EXPECT_EQ(ph.firstNonFinite()->at.name.rfind("transformer.", 0), 0u)
        << ph.firstNonFinite()->at.name;
    EXPECT_FALSE(torch::isfinite(d).all().item<bool>());
}

TEST(MassiveActivations, VaeDecoderScalingKeepsTheFunctionAndOverflowsFp16) {
    torch::manual_seed(2);
    AutoencoderKL fresh(AutoencoderKLConfig::fromJson(vaeConfig(1.0, 0.0)));
    nn::initialiseForTraining(*fresh);
    WeightMap w = stateOf(*fresh), scaled;
    for (auto& kv : w) scaled[kv.first] = kv.second.detach().clone();
    const auto keys = scaleVaeDecoderResidual(scaled, 32768);
    EXPECT_GT(keys.size(), 10u);
    torch::NoGradGuard g;
    auto z = torch::randn({1, 4, 16, 16});
    ProbeContext p0(PrecisionPlan::parse("vae=fp32"), cpuDemoModel(), ProbeLevel::Off);
    ProbeContext p1(PrecisionPlan::parse("vae=fp32"), cpuDemoModel(), ProbeLevel::Off);
    auto a = loadAutoencoderKL(vaeConfig(1.0, 0.0), w, p0.policy())->decode(z, p0);
    auto b = loadAutoencoderKL(vaeConfig(1.0, 0.0), scaled, p1.policy())->decode(z, p1);
    EXPECT_LT(test::relErr(b, a), 1e-4);
    ProbeContext ph(PrecisionPlan::parse("vae=fp16"), cpuDemoModel(), ProbeLevel::Layer);
    loadAutoencoderKL(vaeConfig(1.0, 0.0), scaled, ph.policy())->decode(z, ph);
    ASSERT_TRUE(ph.firstNonFinite().has_value());
    EXPECT_EQ(ph.firstNonFinite()->at.name.rfind("vae.decoder.", 0), 0u)
        << ph.firstNonFinite()->at.name;
}

class DemoPipelineFolder : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = test::tempDir("demo-pipeline") + "/model";
        torch::manual_seed(4);
        DemoExport e;
        e.vocab = learnBpe(grammarWords());
        const int n = int(e.vocab.tokens.size());
        ClipTextModel te(clipTextConfigFromJson(textEncoderConfig(n, n - 2, n - 1, n - 1)));
        FluxTransformer tr(FluxConfig::fromJson(transformerConfig()));
        AutoencoderKL vae(AutoencoderKLConfig::fromJson(vaeConfig(1.0, 0.0)));
        nn::initialiseForTraining(*te);
        nn::initialiseForTraining(*tr);
        nn::initialiseForTraining(*vae);
        e.textEncoder = stateOf(*te);
        e.transformer = stateOf(*tr);
        e.vae = stateOf(*vae);
        e.latentRgbFactors.assign(15, 0.1);
        e.residualScaleTransformer = 65536;
        e.residualScaleVae = 32768;
        exportDemoPipeline(s_dir, e);
    }
    static void TearDownTestSuite() {
        std::filesystem::remove_all(std::filesystem::path(s_dir).parent_path());
    }
    static std::string s_dir;
};
std::string DemoPipelineFolder::s_dir;

TEST_F(DemoPipelineFolder, IsADiffusersStyleFolderInBf16) {
    namespace fs = std::filesystem;
    for (const char* f :
         {"model_index.json", "README.md", "text_encoder/config.json",
          "text_encoder/model.safetensors", "tokenizer/vocab.json", "tokenizer/merges.txt",
          "transformer/config.json", "transformer/diffusion_pytorch_model.safetensors",
          "vae/config.json", "vae/diffusion_pytorch_model.safetensors",
          "scheduler/scheduler_config.json"})
        EXPECT_TRUE(fs::exists(fs::path(s_dir) / f)) << f;
    auto st = SafetensorsFile::open(s_dir + "/transformer/diffusion_pytorch_model.safetensors");
    for (const auto& t : st->tensors()) EXPECT_EQ(t.dtype, StDType::BF16) << t.name;
    EXPECT_FALSE(fs::exists(s_dir + ".partial"));
}

TEST_F(DemoPipelineFolder, RunsStepsWithPreviewsAndAVerdict) {
    auto p = Pipeline::load(s_dir, PrecisionPlan(), cpuDemoModel());
    EXPECT_EQ(p->effectivePlan().toString(), "text_encoder=bf16,transformer=bf16,vae=bf16");
    RunConfig cfg;
    cfg.prompt = "a large red circle on the left, blue background";
    cfg.steps = 3;
    cfg.decodeEvery = 2;
    auto rec = p->run(cfg);
    ASSERT_EQ(rec.steps.size(), 3u);
    EXPECT_FALSE(rec.cancelled);
    ASSERT_TRUE(rec.finalImage.has_value());
    EXPECT_EQ(rec.finalImage->width, 64);
    int projections = 0, decodes = 0;
    for (const auto& pv : rec.previews) (pv.fullDecode ? decodes : projections)++;
    EXPECT_EQ(projections, 3);
    EXPECT_EQ(decodes, 1);
    EXPECT_FALSE(rec.verdict.empty());
    EXPECT_FALSE(rec.probes.empty());
    // Same seed, same image; another seed, another image.
    auto again = p->run(cfg);
    EXPECT_EQ(again.savedImage->rgb, rec.savedImage->rgb);
    cfg.seed = 99;
    EXPECT_NE(p->run(cfg).savedImage->rgb, rec.savedImage->rgb);
}

TEST_F(DemoPipelineFolder, Fp16TransformerGivesNonFiniteLatentsFromTheFirstStep) {
    auto p = Pipeline::load(s_dir, PrecisionPlan::parse("transformer=fp16"), cpuDemoModel());
    RunConfig cfg;
    cfg.prompt = "a small blue star at the top, white background";
    cfg.steps = 2;
    auto rec = p->run(cfg);
    ASSERT_EQ(rec.steps.size(), 2u);
    EXPECT_GT(rec.steps[0].latent.nonFinite(), 0);
    ASSERT_TRUE(rec.firstNonFinite.has_value());
    EXPECT_EQ(rec.firstNonFinite->at.name.rfind("transformer.", 0), 0u);
    EXPECT_EQ(rec.firstNonFinite->at.step, 0);
    EXPECT_EQ(rec.verdict, "nan/inf");
    // The preview marks NaN pixels magenta instead of showing black.
    const auto& img = *rec.finalImage;
    ASSERT_EQ(img.nonFinite[0], 1);
    EXPECT_EQ(img.rgb[0], 255);
    EXPECT_EQ(img.rgb[1], 0);
    EXPECT_EQ(img.rgb[2], 255);
    EXPECT_EQ(rec.savedImage->rgb[0], 0);  // what a pipeline would have saved: black
}

TEST_F(DemoPipelineFolder, CancelStopsWithinOneStepAndBadSettingsAreRefused) {
    auto p = Pipeline::load(s_dir, PrecisionPlan(), cpuDemoModel());
    struct StopAfterFirst : RunObserver {
        std::atomic<bool>* flag;
        void onStep(const StepRecord&, const std::vector<ProbeRecord>&) override {
            flag->store(true);
        }
    } obs;
    std::atomic<bool> cancel{false};
    obs.flag = &cancel;
    RunConfig cfg;
    cfg.prompt = "a ring";
    cfg.steps = 10;
    auto rec = p->run(cfg, &obs, &cancel);
    EXPECT_TRUE(rec.cancelled);
    EXPECT_EQ(rec.steps.size(), 1u);
    EXPECT_FALSE(rec.finalImage.has_value());

    cfg.width = 60;
    EXPECT_THROW(p->run(cfg), PipelineError);
    cfg.width = 64;
    cfg.steps = 0;
    EXPECT_THROW(p->run(cfg), PipelineError);
    cfg.steps = 2;
    cfg.prompt = std::string(1 << 20, 'x');  // a megabyte prompt is truncated, not a hang
    EXPECT_EQ(p->run(cfg).steps.size(), 2u);
}
