// Stable Diffusion 1.x and SDXL as diffusers runs them: tiny pipelines built here run end to end,
// step for step equal to the reference loop written out by hand from the components
// (StableDiffusionPipeline / StableDiffusionXLPipeline.__call__), and refuse what they cannot run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "flux1_fixture.h"
#include "io/model_folder.h"
#include "io/safetensors.h"
#include "models/opened_component.h"
#include "models/roles.h"
#include "families/unet/unet_family.h"
#include "pipeline/pipeline.h"
#include "pipeline/precision_search.h"
#include "pipeline_fixture.h"
#include "remedy_helpers.h"
#include "sampling/scheduler.h"
#include "sd_fixture.h"
#include "single_file_helpers.h"
#include "test_util.h"
#include "text/clip_tokenizer.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

struct TinySd {
    struct Files {
        test::SdFiles sd, xl;
    };
    static constexpr const char* kTag = "sd_pipeline";
    static Files write(const std::string& root) {
        return {test::writeTinySd(root + "/sd", false, test::sdEulerConfig()),
                test::writeTinySd(root + "/xl", true, test::sdEulerConfig())};
    }
    static RunConfig config(int steps) {
        RunConfig c = test::tinyRunConfig("a lighthouse on a cliff at dusk, oil painting", 3, 6.0,
                                          24, 16, steps);
        c.negativePrompt = "blurry";
        c.probeLevel = ProbeLevel::Off;
        return c;
    }
};

// s_files.sd (SD 1.x-shaped) and s_files.xl (SDXL-shaped).
class SdPipeline : public test::TinyPipelineTest<TinySd> {
protected:
    static RunConfig config(const std::string& model) {
        RunConfig c = TinySd::config(3);
        c.modelDir = model;
        return c;
    }
};

// The component in `dir` (a sub-folder of a pipeline folder), loaded as stored, as the `C` it is.
template <class C>
std::shared_ptr<C> loadSdPipeline(const std::string& dir) {
    OpenedComponent c = openFolderComponent(dir);
    PrecisionPolicy policy(PrecisionPlan{}, kCpuPipeline);
    return std::dynamic_pointer_cast<C>(
        loadComponent(*FamilyRegistry::global().require(c.className, dir), c.source, policy,
                      fs::path(dir).filename().string()));
}

torch::Tensor ids(const std::string& tokenizerDir, const std::vector<std::string>& texts) {
    const ClipTokenizer t = ClipTokenizer::fromFolder(tokenizerDir);
    std::vector<int64_t> v;
    for (const auto& s : texts) {
        auto p = t.encodePadded(s, 0);
        v.insert(v.end(), p.begin(), p.end());
    }
    return torch::tensor(v).view({int64_t(texts.size()), -1});
}

torch::Tensor latentsOf(const StepRecord& s) {
    return torch::from_blob(const_cast<float*>(s.latentValues.data()),
                            {1, s.latentChannels, s.latentHeight, s.latentWidth})
        .clone();
}

// __call__ written out: noise * init_noise_sigma, then per step scale_model_input on the
// doubled batch, the UNet, uncond + g (cond - uncond), scheduler.step.
std::vector<torch::Tensor> referenceLoop(const RunConfig& cfg, UNet2DConditionComponent& unet,
                                         const UNetInputs& conditioning, int h, int w) {
    ProbeContext probes(PrecisionPolicy(PrecisionPlan{}, kCpuPipeline), ProbeLevel::Off);
    auto scheduler = makeScheduler(test::sdEulerConfig());
    scheduler->setTimesteps(cfg.steps);
    auto gen = at::detail::createCPUGenerator(cfg.seed);
    auto x = torch::randn({1, 4, h, w}, gen, torch::kFloat32) * scheduler->initNoiseSigma();
    std::vector<torch::Tensor> out;
    for (int i = 0; i < cfg.steps; ++i) {
        UNetInputs in = conditioning;
        in.sample = scheduler->scaleModelInput(torch::cat({x, x}), i);
        in.timestep = torch::full({2}, scheduler->timestep(i));
        auto eps = unet.model->forward(in, probes).chunk(2);
        auto guided = eps[0] + cfg.guidance * (eps[1] - eps[0]);
        x = scheduler->step(guided, i, x, {}, gen).prevSample;
        out.push_back(x);
    }
    return out;
}

void expectSteps(const RunRecord& rec, const std::vector<torch::Tensor>& reference) {
    ASSERT_EQ(rec.steps.size(), reference.size());
    for (size_t i = 0; i < reference.size(); ++i)
        EXPECT_LT(test::relErr(latentsOf(rec.steps[i]), reference[i]), 1e-5) << "step " << i;
}

TEST_F(SdPipeline, Sd1RunsTheReferenceLoop) {
    auto pipeline = Pipeline::load(s_files.sd.folder, {}, PrecisionPlan{}, kCpuPipeline);
    const RunConfig cfg = config(s_files.sd.folder);
    const RunRecord rec = pipeline->run(cfg);
    ASSERT_TRUE(rec.error.empty()) << rec.error;

    ProbeContext probes(PrecisionPolicy(PrecisionPlan{}, kCpuPipeline), ProbeLevel::Off);
    auto te = loadSdPipeline<TextEncoderComponent>(s_files.sd.folder + "/text_encoder");
    auto unet = loadSdPipeline<UNet2DConditionComponent>(s_files.sd.folder + "/unet");
    UNetInputs c;
    // [uncond, cond]: the negative prompt's last hidden state first.
    c.encoderHiddenStates =
        te->encode(ids(s_files.sd.folder + "/tokenizer", {cfg.negativePrompt, cfg.prompt}), probes)
            .lastHiddenState;
    expectSteps(rec, referenceLoop(cfg, *unet, c, 8, 12));
    EXPECT_EQ(rec.verdict, "ok") << rec.verdictExplanation;
    EXPECT_EQ(pipeline->defaults().steps, 50);
    EXPECT_DOUBLE_EQ(pipeline->defaults().guidance, 7.5);
}

TEST_F(SdPipeline, SdxlRunsTheReferenceLoop) {
    auto pipeline = Pipeline::load(s_files.xl.folder, {}, PrecisionPlan{}, kCpuPipeline);
    RunConfig cfg = config(s_files.xl.folder);
    cfg.negativePrompt.clear();  // force_zeros_for_empty_prompt: zeros, not the encoding of ""
    const RunRecord rec = pipeline->run(cfg);
    ASSERT_TRUE(rec.error.empty()) << rec.error;

    ProbeContext probes(PrecisionPolicy(PrecisionPlan{}, kCpuPipeline), ProbeLevel::Off);
    auto te = loadSdPipeline<TextEncoderComponent>(s_files.xl.folder + "/text_encoder");
    auto te2 = loadSdPipeline<TextEncoderComponent>(s_files.xl.folder + "/text_encoder_2");
    auto unet = loadSdPipeline<UNet2DConditionComponent>(s_files.xl.folder + "/unet");
    TextEncoding a = te->encode(ids(s_files.xl.folder + "/tokenizer", {cfg.prompt}), probes);
    TextEncoding b = te2->encode(ids(s_files.xl.folder + "/tokenizer_2", {cfg.prompt}), probes);
    // hidden_states[-2] of both, concatenated; text_embeds of the second.
    auto seq = torch::cat(
        {a.hiddenStates[a.hiddenStates.size() - 2], b.hiddenStates[b.hiddenStates.size() - 2]},
        -1);  // [1, 32, 56]
    ASSERT_EQ(seq.size(2), 56);
    UNetInputs c;
    c.encoderHiddenStates = torch::cat({torch::zeros_like(seq), seq});
    c.textEmbeds = torch::cat({torch::zeros_like(b.projected), b.projected});  // [2, 16]
    // original (h, w), crop (0, 0), target (h, w)
    c.timeIds = torch::tensor({16.f, 24.f, 0.f, 0.f, 16.f, 24.f}).view({1, 6}).repeat({2, 1});
    expectSteps(rec, referenceLoop(cfg, *unet, c, 8, 12));
    EXPECT_DOUBLE_EQ(pipeline->defaults().guidance, 5.0);
    EXPECT_FALSE(pipeline->defaults().samplers.empty());
}

// One LDM / SGM checkpoint holding the folder's weights: the same latents at every step.
TEST_F(SdPipeline, ASingleFileGivesTheFoldersImage) {
    for (const bool xl : {false, true}) {
        const test::SdFiles& f = xl ? s_files.xl : s_files.sd;
        const std::string file = test::writeSdSingleFile(
            f, s_root + (xl ? "/files/sdxl-tiny.safetensors" : "/files/sd15-tiny.safetensors"), xl);
        RunConfig cfg = config(f.folder);
        cfg.scheduler = "euler";  // the folder's; a single file gets the reference repository's
        auto folder = Pipeline::load(f.folder, {}, PrecisionPlan{}, kCpuPipeline);
        const RunRecord a = folder->run(cfg);
        auto single = Pipeline::load(file, {}, PrecisionPlan{}, kCpuPipeline);
        std::vector<std::string> slots;
        for (const auto& c : single->components()) slots.push_back(c.name);
        const std::vector<std::string> expected =
            xl ? std::vector<std::string>{"text_encoder", "text_encoder_2", "unet", "vae"}
               : std::vector<std::string>{"text_encoder", "unet", "vae"};
        EXPECT_EQ(slots, expected);
        cfg.modelDir = file;
        const RunRecord b = single->run(cfg);
        ASSERT_EQ(a.steps.size(), b.steps.size());
        for (size_t i = 0; i < a.steps.size(); ++i)
            EXPECT_LT(test::relErr(latentsOf(b.steps[i]), latentsOf(a.steps[i])), 1e-6)
                << (xl ? "SDXL" : "SD") << " step " << i;
        EXPECT_NEAR(a.image.mean, b.image.mean, 1e-5);
    }
}

// SD 2.x: OpenCLIP-H's layout (in_proj, one layer more than used) and v-prediction, from a
// folder and from the LDM file.
TEST_F(SdPipeline, AnSd2FileGivesTheFoldersImageWithVPrediction) {
    nlohmann::json ddim = test::sdEulerConfig();
    ddim["_class_name"] = "DDIMScheduler";
    ddim["prediction_type"] = "v_prediction";
    ddim["clip_sample"] = false;
    ddim["set_alpha_to_one"] = false;
    const auto f = test::writeTinySd2(s_root + "/sd2", ddim);
    const std::string file =
        test::writeSdSingleFile(f, s_root + "/sd2/files/sd21-tiny.safetensors", false);
    RunConfig cfg = config(f.folder);
    cfg.scheduler = "euler";
    cfg.predictionType = "v_prediction";  // the folder's; the file is taken as epsilon here
    auto folder = Pipeline::load(f.folder, {}, PrecisionPlan{}, kCpuPipeline);
    const RunRecord a = folder->run(cfg);
    EXPECT_TRUE(a.notes.empty());
    auto single = Pipeline::load(file, {}, PrecisionPlan{}, kCpuPipeline);
    cfg.modelDir = file;
    const RunRecord b = single->run(cfg);
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (size_t i = 0; i < a.steps.size(); ++i)
        EXPECT_LT(test::relErr(latentsOf(b.steps[i]), latentsOf(a.steps[i])), 1e-6) << i;
    // Its own scheduler: DDIM with v-prediction, against epsilon.
    cfg.scheduler.clear();
    cfg.predictionType.clear();
    cfg.modelDir = f.folder;
    const RunRecord own = folder->run(cfg);
    cfg.predictionType = "epsilon";
    const RunRecord asEpsilon = folder->run(cfg);
    ASSERT_FALSE(asEpsilon.notes.empty());
    EXPECT_NE(asEpsilon.notes[0].find("v_prediction"), std::string::npos) << asEpsilon.notes[0];
    EXPECT_GT(test::relErr(latentsOf(asEpsilon.steps.back()), latentsOf(own.steps.back())), 1e-3);
}

// A standalone VAE file (sdxl_vae.safetensors, sdxl-vae-fp16-fix) in place of the checkpoint's:
// the one given decodes, so two VAEs compare on the same latents.
TEST_F(SdPipeline, AVaeFileReplacesTheCheckpointsVae) {
    const std::string file =
        test::writeSdSingleFile(s_files.xl, s_root + "/vae_swap/sdxl.safetensors", true);
    WeightMap vae = s_files.xl.vae;
    for (const char* p : {"weight", "bias"}) {
        const std::string k = std::string("decoder.up_blocks.0.resnets.0.conv1.") + p;
        vae[k] = vae[k] * 1e6;  // overflows fp16, harmless in fp32 (a group norm follows)
    }
    const std::string vaeFile = s_root + "/vae_swap/sdxl_vae.safetensors";
    const WeightMap ldm = test::vaeToLdm(vae, 2);
    writeSafetensors(vaeFile,
                     std::vector<std::pair<std::string, torch::Tensor>>(ldm.begin(), ldm.end()));
    RunConfig cfg = config(file);
    cfg.steps = 2;
    cfg.plan = PrecisionPlan::parse("vae=fp16");
    ModelFiles with;
    with.vae = vaeFile;
    auto own = Pipeline::load(file, {}, cfg.plan, kCpuPipeline);
    auto swapped = Pipeline::load(file, with, cfg.plan, kCpuPipeline);
    bool named = false;
    for (const auto& line : swapped->detected()) named |= line.find("(--vae)") != std::string::npos;
    EXPECT_TRUE(named);
    cfg.modelFiles = with;
    const RunRecord b = swapped->run(cfg);
    cfg.modelFiles = {};
    const RunRecord a = own->run(cfg);
    EXPECT_NE(a.verdict, "nan/inf") << a.verdictExplanation;
    EXPECT_EQ(b.verdict, "nan/inf") << b.verdictExplanation;
    // The same latents: only the decoder differs.
    EXPECT_EQ(a.steps.back().latentValues, b.steps.back().latentValues);
}

TEST_F(SdPipeline, AnSdxlFileWithoutItsSecondEncoderSaysWhatToGive) {
    const std::string file =
        test::writeSdSingleFile(s_files.xl, s_root + "/no_bigg/sdxl.safetensors", true, false);
    const std::string e =
        errorOf<PipelineError>([&] { Pipeline::load(file, {}, PrecisionPlan{}, kCpuPipeline); });
    EXPECT_NE(e.find("text_encoder_2"), std::string::npos) << e;
    EXPECT_NE(e.find("--text-encoder-2"), std::string::npos) << e;
}

TEST_F(SdPipeline, SamplersAndPredictionTypesAreTheRunsToPick) {
    auto pipeline = Pipeline::load(s_files.sd.folder, {}, PrecisionPlan{}, kCpuPipeline);
    RunConfig cfg = config(s_files.sd.folder);
    std::map<std::string, RunRecord> runs;
    for (const std::string s : {"", "euler", "euler_a", "ddim", "dpmpp_2m", "dpmpp_2m_karras"}) {
        cfg.scheduler = s;
        runs[s] = pipeline->run(cfg);
        EXPECT_EQ(runs[s].steps.size(), 3u) << s;
        EXPECT_TRUE(std::isfinite(runs[s].image.mean)) << s;
    }
    // The model's own is Euler; the others step differently.
    EXPECT_EQ(runs[""].steps.back().latentValues, runs["euler"].steps.back().latentValues);
    EXPECT_NE(runs["euler"].steps.back().latentValues, runs["ddim"].steps.back().latentValues);
    EXPECT_NE(runs["dpmpp_2m"].steps.back().latentValues,
              runs["dpmpp_2m_karras"].steps.back().latentValues);

    cfg.scheduler = "plms";
    EXPECT_NE(errorOf<PipelineError>([&] { pipeline->validate(cfg); }).find("plms"),
              std::string::npos);
    cfg.scheduler.clear();
    cfg.predictionType = "v_prediction";
    const RunRecord v = pipeline->run(cfg);
    ASSERT_FALSE(v.notes.empty());
    EXPECT_NE(v.notes[0].find("epsilon"), std::string::npos) << v.notes[0];
    EXPECT_NE(v.steps.back().latentValues, runs[""].steps.back().latentValues);
}

TEST_F(SdPipeline, AnUnimplementedSchedulerRunsEulerAndSaysSo) {
    const std::string root = s_root + "/lms";
    nlohmann::json lms = test::sdEulerConfig();
    lms["_class_name"] = "LMSDiscreteScheduler";
    const auto f = test::writeTinySd(root, false, lms);
    auto pipeline = Pipeline::load(f.folder, {}, PrecisionPlan{}, kCpuPipeline);
    const RunRecord rec = pipeline->run(config(f.folder));
    ASSERT_FALSE(rec.notes.empty());
    EXPECT_NE(rec.notes[0].find("LMSDiscreteScheduler"), std::string::npos) << rec.notes[0];
    EXPECT_NE(rec.notes[0].find("EulerDiscreteScheduler"), std::string::npos) << rec.notes[0];
}

// Any multiple of the VAE's factor: an odd latent size is halved up (ceil) and upsampled back to
// the skip's size, as diffusers' forward_upsample_size does.
TEST_F(SdPipeline, SizesAreMultiplesOfTheVaeFactor) {
    auto pipeline = Pipeline::load(s_files.sd.folder, {}, PrecisionPlan{}, kCpuPipeline);
    RunConfig cfg = config(s_files.sd.folder);
    cfg.width = 22;  // latent 11, 6 after the UNet's downsampling, 11 again on the way up
    const RunRecord rec = pipeline->run(cfg);
    ASSERT_EQ(rec.steps.size(), 3u);
    EXPECT_EQ(rec.steps[0].latentWidth, 11);
    EXPECT_TRUE(rec.image.allFinite());
    ASSERT_TRUE(rec.finalImage);
    EXPECT_EQ(rec.finalImage->width, 22);
    cfg.width = 23;
    const std::string e = errorOf<PipelineError>([&] { pipeline->validate(cfg); });
    EXPECT_NE(e.find("multiples of 2"), std::string::npos) << e;
}

TEST_F(SdPipeline, PartsThatDoNotFitAreRefused) {
    // An SDXL UNet in an SD folder, and an SD folder's text encoder too narrow for the UNet.
    const std::string root = s_root + "/mixed";
    const auto f = test::writeTinySd(root, false, test::sdEulerConfig());
    fs::remove_all(f.folder + "/unet");
    fs::copy(s_files.xl.folder + "/unet", f.folder + "/unet");
    std::string e = errorOf<PipelineError>(
        [&] { Pipeline::load(f.folder, {}, PrecisionPlan{}, kCpuPipeline); });
    EXPECT_NE(e.find("StableDiffusionXLPipeline"), std::string::npos) << e;

    const auto g = test::writeTinySd(root + "2", true, test::sdEulerConfig());
    fs::remove_all(g.folder + "/text_encoder_2");
    fs::copy(s_files.xl.folder + "/text_encoder", g.folder + "/text_encoder_2");
    e = errorOf<PipelineError>(
        [&] { Pipeline::load(g.folder, {}, PrecisionPlan{}, kCpuPipeline); });
    EXPECT_NE(e.find("cross_attention_dim"), std::string::npos) << e;

    // An inpainting UNet (latents + mask + masked image) needs more than a prompt.
    const auto h = test::writeTinySd(root + "3", false, test::sdEulerConfig());
    nlohmann::json inpaint = h.unetConfig;
    inpaint["in_channels"] = 9;
    const WeightMap w = test::randomWeightsOf(inpaint, "UNet2DConditionModel", 5);
    std::ofstream(h.folder + "/unet/config.json") << inpaint.dump();
    writeSafetensors(h.folder + "/unet/diffusion_pytorch_model.safetensors",
                     std::vector<std::pair<std::string, torch::Tensor>>(w.begin(), w.end()));
    e = errorOf<PipelineError>(
        [&] { Pipeline::load(h.folder, {}, PrecisionPlan{}, kCpuPipeline); });
    EXPECT_NE(e.find("inpainting"), std::string::npos) << e;
}

// SDXL's VAE in fp16: decoder activations past 65504 that the group norm after them would have
// brought back, as in the real SDXL VAE (sdxl-vae-fp16-fix rescales exactly these).
TEST_F(SdPipeline, TheSdxlVaeFailureIsReproducedLocatedAndFixed) {
    const std::string root = s_root + "/vae_overflow";
    auto f = test::writeTinySd(root, true, test::sdEulerConfig());
    WeightMap vae = f.vae;
    for (const char* p : {"weight", "bias"}) {
        const std::string k = std::string("decoder.up_blocks.0.resnets.0.conv1.") + p;
        vae[k] = vae[k] * 1e6;  // outputs ~1e5..1e6: finite in fp32 and bf16, Inf in fp16
    }
    std::vector<std::pair<std::string, torch::Tensor>> list(vae.begin(), vae.end());
    writeSafetensors(f.folder + "/vae/diffusion_pytorch_model.safetensors", list);

    RunConfig cfg = config(f.folder);
    cfg.steps = 2;
    cfg.probeLevel = ProbeLevel::Layer;
    cfg.plan = PrecisionPlan::parse("vae=fp16");
    auto pipeline = Pipeline::load(f.folder, {}, cfg.plan, kCpuPipeline);
    const RunRecord bad = pipeline->run(cfg);
    EXPECT_EQ(bad.verdict, "nan/inf") << bad.verdictExplanation;
    ASSERT_TRUE(bad.firstNonFinite.has_value());
    EXPECT_EQ(bad.firstNonFinite->at.name.rfind("vae.decoder.up_blocks.0", 0), 0u)
        << bad.firstNonFinite->at.name;
    // The latents were fine: only the decode failed.
    for (const auto& s : bad.steps) EXPECT_EQ(s.latent.finite, s.latent.count);
    bool upcastNote = false;
    for (const auto& n : bad.notes) upcastNote |= n.find("force_upcast") != std::string::npos;
    EXPECT_TRUE(upcastNote);

    for (const char* fix : {"vae=fp32", "vae=bf16"}) {
        cfg.plan = PrecisionPlan::parse(fix);
        pipeline->setPlan(cfg.plan);
        const RunRecord good = pipeline->run(cfg);
        EXPECT_FALSE(good.firstNonFinite.has_value()) << fix;
        EXPECT_NE(good.verdict, "nan/inf") << fix;
    }

    cfg.plan = PrecisionPlan::parse("vae=fp16");
    PrecisionSearchOptions o;
    o.safeFormat = Format::FP32;
    const PrecisionSearch search = searchPrecision(cfg, o);
    EXPECT_TRUE(search.planFails);
    ASSERT_TRUE(search.result.found) << search.result.message;
    // The block that overflows must leave fp16; the encoder, unused here, stays.
    bool upBlock = false;
    for (const auto& b : search.result.keptBlocks) {
        upBlock |= b.rfind("vae.decoder.up_blocks.0", 0) == 0;
        EXPECT_EQ(b.find("vae.encoder"), std::string::npos) << b;
    }
    EXPECT_TRUE(upBlock) << search.result.planText;

    // The remedies, ranked against the fp32 run: sdxl-vae-fp16-fix's idea (scale the overflowing
    // activations down) as scale:K, next to clipping and a higher format.
    const auto row = test::rankedRemedies(cfg, Format::FP32);
    EXPECT_TRUE(row.at("format/blocksfp32").passed);
    EXPECT_TRUE(row.at("scale/blocks").passed);
}

}  // namespace
}  // namespace hs
