// Stable Diffusion run as ComfyUI runs it (RunConfig::comfySampler / comfyScheduler,
// denoising/sd_comfy_run.h): a tiny SD pipeline with comfy euler + normal equals ComfyUI's loop
// written out here over the same UNet, with the sigma table and the timesteps derived by hand;
// karras gives another run; names not implemented run a fallback the record names; the record
// carries the names and each step's sigma.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>

#include "families/unet/unet_family.h"
#include "models/registry.h"
#include "models/roles.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "report/record_json.h"
#include "sd_fixture.h"
#include "test_util.h"
#include "text/clip_tokenizer.h"

namespace hs {
namespace {

struct ComfyTinySd {
    using Files = test::SdFiles;
    static constexpr const char* kTag = "sd_comfy";
    static Files write(const std::string& root) {
        return test::writeTinySd(root + "/sd", false, test::sdEulerConfig());
    }
    static RunConfig config(int steps) {
        RunConfig c = test::tinyRunConfig("a red barn in a snowy field", 11, 5.0, 24, 16, steps);
        c.negativePrompt = "fog";
        c.probeLevel = ProbeLevel::Off;
        c.comfySampler = "euler";
        c.comfyScheduler = "normal";
        return c;
    }
};

class SdPipelineComfy : public test::TinyPipelineTest<ComfyTinySd> {
protected:
    static RunConfig comfyConfig(int steps) {
        RunConfig c = ComfyTinySd::config(steps);
        c.modelDir = s_files.folder;
        return c;
    }
};

// A part of the fixture built from the weights it wrote, loaded as stored, as the `C` it is.
template <class C>
std::shared_ptr<C> comfySdPart(const char* cls, const nlohmann::json& config,
                               const WeightMap& weights) {
    PrecisionPolicy policy(PrecisionPlan{}, test::kCpuPipeline);
    return std::dynamic_pointer_cast<C>(loadComponent(*FamilyRegistry::global().require(cls, cls),
                                                      ComponentSource{cls, config, weights}, policy,
                                                      cls));
}

torch::Tensor comfyStepLatents(const StepRecord& s) {
    return torch::from_blob(const_cast<float*>(s.latentValues.data()),
                            {1, s.latentChannels, s.latentHeight, s.latentWidth})
        .clone();
}

// SD's training sigma at index k, by the formula (betas on a line in sqrt space), to float.
float sdTrainingSigma(int k) {
    const long double a = std::sqrt(0.00085L), b = std::sqrt(0.012L);
    long double acp = 1;
    for (int j = 0; j <= k; ++j) {
        const long double s = a + (b - a) * j / 999;
        acp *= 1 - s * s;
    }
    return float(std::sqrt((1 - acp) / acp));
}

// ComfyUI's txt2img loop with euler + normal over 4 steps, written out: normal's timesteps
// linspace(999, 0, 4) are the integers 999, 666, 333, 0, so its sigmas are table entries and
// the UNet's timesteps are those integers; noise * sqrt(1 + sigma_max^2) (max_denoise); D as
// EPS: x0 = x - eps(x / sqrt(s^2 + 1), t) s on [uncond, cond], mixed uncond + (cond - uncond) g;
// an Euler step per sigma.
std::vector<torch::Tensor> comfyReferenceLoop(const RunConfig& cfg, UNet2DConditionComponent& unet,
                                              const torch::Tensor& context, int h, int w) {
    ProbeContext probes(PrecisionPolicy(PrecisionPlan{}, test::kCpuPipeline), ProbeLevel::Off);
    const std::vector<int> timesteps = {999, 666, 333, 0};
    std::vector<float> sigmas;
    for (int t : timesteps) sigmas.push_back(sdTrainingSigma(t));
    sigmas.push_back(0.0f);
    auto gen = at::detail::createCPUGenerator(cfg.seed);
    auto x =
        torch::randn({1, 4, h, w}, gen, torch::kFloat32) * std::sqrt(1.0f + sigmas[0] * sigmas[0]);
    std::vector<torch::Tensor> out;
    for (size_t i = 0; i < timesteps.size(); ++i) {
        const float s = sigmas[i];
        UNetInputs in;
        in.sample = torch::cat({x, x}) / std::sqrt(s * s + 1);
        in.timestep = torch::full({2}, double(timesteps[i]));
        in.encoderHiddenStates = context;
        auto eps = unet.model->forward(in, probes).chunk(2);
        auto uncond = x - eps[0] * s, cond = x - eps[1] * s;
        auto denoised = uncond + (cond - uncond) * cfg.guidance;
        x = x + (x - denoised) / s * (sigmas[i + 1] - s);
        out.push_back(x);
    }
    return out;
}

TEST_F(SdPipelineComfy, EulerNormalIsComfysLoopOverTheSameUNet) {
    auto pipeline = Pipeline::load(s_files.folder, {}, PrecisionPlan{}, test::kCpuPipeline);
    const RunConfig cfg = comfyConfig(4);
    const RunRecord rec = pipeline->run(cfg);
    ASSERT_TRUE(rec.error.empty()) << rec.error;

    ProbeContext probes(PrecisionPolicy(PrecisionPlan{}, test::kCpuPipeline), ProbeLevel::Off);
    auto te = comfySdPart<TextEncoderComponent>("CLIPTextModel", s_files.textEncoderConfig,
                                                s_files.textEncoder);
    auto unet = comfySdPart<UNet2DConditionComponent>("UNet2DConditionModel", s_files.unetConfig,
                                                      s_files.unet);
    const ClipTokenizer tokenizer = ClipTokenizer::fromFolder(s_files.folder + "/tokenizer");
    const auto ids = torch::stack({torch::tensor(tokenizer.encodePadded(cfg.negativePrompt, 0)),
                                   torch::tensor(tokenizer.encodePadded(cfg.prompt, 0))})
                         .to(torch::kInt64);                       // [2, 77]
    const auto context = te->encode(ids, probes).lastHiddenState;  // [uncond, cond]
    const auto reference = comfyReferenceLoop(cfg, *unet, context, 8, 12);
    ASSERT_EQ(rec.steps.size(), reference.size());
    const std::vector<int> timesteps = {999, 666, 333, 0};
    for (size_t i = 0; i < reference.size(); ++i) {
        EXPECT_LT(test::relErr(comfyStepLatents(rec.steps[i]), reference[i]), 1e-5) << i;
        EXPECT_NEAR(rec.steps[i].sigma, sdTrainingSigma(timesteps[i]),
                    1e-6 * sdTrainingSigma(timesteps[i]))
            << i;
        EXPECT_EQ(rec.steps[i].timestep, timesteps[i]) << i;
    }
    EXPECT_TRUE(rec.notes.empty()) << rec.notes.front();

    // The record carries ComfyUI's names, and reads them back.
    const auto j = runRecordToJson(rec);
    EXPECT_EQ(j["config"]["comfy_sampler"].get<std::string>(), "euler");
    EXPECT_EQ(j["config"]["comfy_scheduler"].get<std::string>(), "normal");
    const RunRecord back = runRecordFromJson(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(back.config.comfySampler, "euler");
    EXPECT_EQ(back.config.comfyScheduler, "normal");

    // Karras: the same first sigma (the table's largest), other steps, another image.
    RunConfig karras = cfg;
    karras.comfyScheduler = "karras";
    const RunRecord k = pipeline->run(karras);
    ASSERT_TRUE(k.error.empty()) << k.error;
    ASSERT_EQ(k.steps.size(), 4u);
    EXPECT_FLOAT_EQ(float(k.steps[0].sigma), float(rec.steps[0].sigma));
    EXPECT_GT(std::abs(k.steps[1].sigma - rec.steps[1].sigma), 0.1);
    EXPECT_GT(test::relErr(comfyStepLatents(k.steps[3]), reference[3]), 1e-3);
}

TEST_F(SdPipelineComfy, NamesNotImplementedRunAFallbackTheRecordNames) {
    auto pipeline = Pipeline::load(s_files.folder, {}, PrecisionPlan{}, test::kCpuPipeline);
    RunConfig cfg = comfyConfig(3);
    cfg.comfySampler = "dpmpp_2m_sde";
    cfg.comfyScheduler = "align_your_steps";
    const RunRecord rec = pipeline->run(cfg);
    ASSERT_TRUE(rec.error.empty()) << rec.error;
    EXPECT_TRUE(test::hasNote(rec, "dpmpp_2m_sde is not implemented: dpmpp_2m ran instead"));
    EXPECT_TRUE(test::hasNote(rec, "scheduler align_your_steps is not implemented: normal ran"));
    EXPECT_EQ(rec.steps.size(), 3u);

    // Ancestral: the run says where its noise comes from; the same seed gives the same image.
    cfg.comfySampler = "euler_ancestral";
    cfg.comfyScheduler = "karras";
    const RunRecord a = pipeline->run(cfg), b = pipeline->run(cfg);
    EXPECT_TRUE(test::hasNote(a, "CPU generator seeded with the seed"));
    EXPECT_EQ(test::relErr(comfyStepLatents(a.steps[2]), comfyStepLatents(b.steps[2])), 0.0);

    // dpm_2 runs two UNet calls a step on steps + 1 sigmas less the penultimate.
    cfg.comfySampler = "dpm_2";
    const RunRecord d = pipeline->run(cfg);
    ASSERT_TRUE(d.error.empty()) << d.error;
    EXPECT_EQ(d.steps.size(), 3u);
}

TEST_F(SdPipelineComfy, RefusesComfySettingsThatDoNotGoTogether) {
    auto pipeline = Pipeline::load(s_files.folder, {}, PrecisionPlan{}, test::kCpuPipeline);
    RunConfig both = comfyConfig(2);
    both.scheduler = "euler";
    EXPECT_THROW(pipeline->validate(both), PipelineError);
    RunConfig schedulerOnly = comfyConfig(2);
    schedulerOnly.comfySampler.clear();
    EXPECT_THROW(pipeline->validate(schedulerOnly), PipelineError);
    EXPECT_NO_THROW(pipeline->validate(comfyConfig(2)));
}

}  // namespace
}  // namespace hs
