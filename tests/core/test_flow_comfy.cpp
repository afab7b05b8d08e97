// The flow-matching models run as ComfyUI runs them (RunConfig::comfySampler / comfyScheduler,
// denoising/flow_match_run.h), on tiny FLUX.1-dev and SD3 pipelines: euler + simple where the
// model's own steps are ComfyUI's gives the model's own run to the bit; dpmpp_2m + karras follows
// ComfyUI's recurrence, recomputed here from the recorded latents and denoised estimates, on the
// karras sigmas of ModelSamplingFlux's table derived by hand, from the seed's CPU randn; SD3 steps
// ModelSamplingDiscreteFlow's shift-3 schedule with the model called at 1000 sigma; names not
// implemented run a fallback the record names.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "anima_fixture.h"
#include "flux1_fixture.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "sd3_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

struct FlowComfyTiny {
    struct Files {
        test::Flux1Files dev;
        test::Sd3Files sd3;
    };
    static constexpr const char* kTag = "flow_comfy";
    static Files write(const std::string& root) {
        return {test::writeTinyFlux1(root + "/dev", true), test::writeTinySd3(root + "/sd3")};
    }
    // 16 x 24: the tiny VAE halves, so [1, 16, 12, 8] latents, 4 x 6 = 24 packed tokens.
    static RunConfig config(int steps) {
        RunConfig c =
            test::tinyRunConfig("a red fox in the snow, photograph", 7, 3.5, 16, 24, steps);
        c.probeLevel = ProbeLevel::Off;
        return c;
    }
};

class FlowComfy : public test::TinyPipelineTest<FlowComfyTiny> {
protected:
    static RunConfig comfy(int steps, const std::string& sampler, const std::string& scheduler) {
        RunConfig c = config(steps);
        c.comfySampler = sampler;
        c.comfyScheduler = scheduler;
        return c;
    }
};

// A step's recorded latents or denoised estimate as [1, C, h, w] float64.
torch::Tensor recorded(const StepRecord& s, const std::vector<float>& values) {
    return torch::from_blob(const_cast<float*>(values.data()),
                            {1, s.latentChannels, s.latentHeight, s.latentWidth})
        .to(torch::kFloat64);
}

// ComfyUI's prepare_noise: torch.manual_seed(seed), a CPU randn of the latent's shape (the
// recorded step's), as float64.
torch::Tensor seedNoise(uint64_t seed, const StepRecord& s) {
    auto gen = at::detail::createCPUGenerator(seed);
    return torch::randn({1, s.latentChannels, s.latentHeight, s.latentWidth}, gen, torch::kFloat32)
        .to(torch::kFloat64);
}

// ModelSamplingFlux's mu for 24 image tokens on its node's line (256, 0.5) .. (4096, 1.15).
double tinyFluxMu() {
    return 0.5 + (1.15 - 0.5) / (4096 - 256) * (24 - 256);
}

TEST_F(FlowComfy, EulerSimpleOnFlux1IsTheModelsOwnRunToTheBit) {
    auto dev = Pipeline::load(s_files.dev.folder, PrecisionPlan(), test::kCpuPipeline);
    // 2 and 4 steps divide ModelSamplingFlux's 10000-entry table: simple picks t = 1, 1/2 (1, 3/4,
    // ...), the pipeline's own linspace(1, 1/N, N), shifted alike.
    for (int steps : {2, 4}) {
        const RunRecord own = dev->run(config(steps));
        const RunRecord comfy = dev->run(FlowComfy::comfy(steps, "euler", "simple"));
        ASSERT_TRUE(comfy.error.empty()) << comfy.error;
        test::expectSameRun(own, comfy, "euler + simple, " + std::to_string(steps) + " steps");
        EXPECT_TRUE(comfy.notes.empty()) << comfy.notes.front();
    }
}

TEST_F(FlowComfy, Dpmpp2mKarrasOnFlux1FollowsComfysRecurrence) {
    auto dev = Pipeline::load(s_files.dev.folder, PrecisionPlan(), test::kCpuPipeline);
    const RunConfig cfg = comfy(3, "dpmpp_2m", "karras");
    const RunRecord rec = dev->run(cfg);
    ASSERT_TRUE(rec.error.empty()) << rec.error;
    ASSERT_EQ(rec.steps.size(), 3u);
    EXPECT_TRUE(rec.notes.empty()) << rec.notes.front();

    // karras (rho 7) between the table's ends: sigma(1e-4) and sigma(1) = 1.
    const double e = std::exp(tinyFluxMu());
    const double sMin = e / (e + (1 / 1e-4 - 1)), sMax = 1.0;
    std::vector<double> sigmas;
    for (int i = 0; i < 3; ++i) {
        const double a = std::pow(sMax, 1 / 7.0), b = std::pow(sMin, 1 / 7.0);
        sigmas.push_back(std::pow(a + i / 2.0 * (b - a), 7));
    }
    sigmas.push_back(0.0);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_NEAR(rec.steps[i].sigma, sigmas[i], 1e-6 * sigmas[i]) << i;
        EXPECT_FLOAT_EQ(float(rec.steps[i].timestep), float(rec.steps[i].sigma)) << i;  // Flux's t
    }

    // The start: the seed's CPU randn of the latent's shape times sigma_0 (CONST noise_scaling).
    torch::Tensor x = seedNoise(cfg.seed, rec.steps[0]);
    // DPM-Solver++(2M) in t = -log sigma over the recorded x0 estimates, in double.
    torch::Tensor oldDenoised;
    for (size_t i = 0; i < 3; ++i) {
        const StepRecord& s = rec.steps[i];
        const torch::Tensor den = recorded(s, s.denoisedValues);
        const double sigma = sigmas[i], next = sigmas[i + 1];
        torch::Tensor want;
        if (next == 0) {
            want = den;
        } else {
            const double h = std::log(sigma) - std::log(next);
            torch::Tensor d = den;
            if (oldDenoised.defined()) {
                const double r = (std::log(sigmas[i - 1]) - std::log(sigma)) / h;
                d = (1 + 1 / (2 * r)) * den - (1 / (2 * r)) * oldDenoised;
            }
            want = next / sigma * x - std::expm1(-h) * d;
        }
        const torch::Tensor got = recorded(s, s.latentValues);
        EXPECT_LT(test::relErr(got, want), 1e-5) << i;
        oldDenoised = den;
        x = got;
    }

    // The denoiser: at sigma 1 both runs see the noise at t = 1, so step 0's x0 estimate
    // x - sigma v is the model's own run's.
    const RunRecord own = dev->run(config(3));
    EXPECT_LT(test::relErr(recorded(rec.steps[0], rec.steps[0].denoisedValues),
                           recorded(own.steps[0], own.steps[0].denoisedValues)),
              1e-6);
    // Other steps, another image.
    const RunRecord euler = dev->run(comfy(3, "euler", "simple"));
    EXPECT_GT(test::relErr(recorded(rec.steps[2], rec.steps[2].latentValues),
                           recorded(euler.steps[2], euler.steps[2].latentValues)),
              1e-3);
}

TEST_F(FlowComfy, Sd3StepsComfysShiftedTableAtAThousandSigma) {
    auto sd3 = Pipeline::load(s_files.sd3.folder, PrecisionPlan(), test::kCpuPipeline);
    RunConfig cfg = comfy(2, "euler", "simple");
    cfg.prompt = "a lighthouse on a cliff at dusk";
    cfg.guidance = 5.0;
    const RunRecord rec = sd3->run(cfg);
    ASSERT_TRUE(rec.error.empty()) << rec.error;
    ASSERT_EQ(rec.steps.size(), 2u);
    // simple on ModelSamplingDiscreteFlow(shift 3): t = 1, 1/2 -> sigma 1, 3/4 (diffusers' own
    // steps go 1 .. 1/1000 instead); the model's time input 1000 sigma.
    EXPECT_NEAR(rec.steps[0].sigma, 1.0, 1e-6);
    EXPECT_NEAR(rec.steps[1].sigma, 0.75, 1e-6);
    EXPECT_NEAR(rec.steps[1].timestep, 750.0, 1e-3);
    // Euler: x1 = x0 + (s1 - s0) (x0 - D0) / s0, and the last step lands on D1.
    const auto& s0 = rec.steps[0];
    const auto x0 = seedNoise(cfg.seed, s0);
    const auto d0 = recorded(s0, s0.denoisedValues);
    EXPECT_LT(test::relErr(recorded(s0, s0.latentValues), x0 + (0.75 - 1.0) * (x0 - d0)), 1e-5);
    const auto& s1 = rec.steps[1];
    EXPECT_LT(test::relErr(recorded(s1, s1.latentValues), recorded(s1, s1.denoisedValues)), 1e-6);
    // At sigma 1 the model's own run calls the model at t = 1000 on the same noise, with CFG.
    RunConfig plain = cfg;
    plain.comfySampler.clear();
    plain.comfyScheduler.clear();
    const RunRecord own = sd3->run(plain);
    EXPECT_LT(test::relErr(d0, recorded(own.steps[0], own.steps[0].denoisedValues)), 1e-6);
    EXPECT_GT(std::abs(own.steps[1].sigma - 0.75), 0.1);
}

TEST_F(FlowComfy, NamesNotImplementedRunAFallbackTheRecordNames) {
    auto dev = Pipeline::load(s_files.dev.folder, PrecisionPlan(), test::kCpuPipeline);
    const RunRecord rec = dev->run(comfy(2, "dpmpp_2m_sde", "align_your_steps"));
    ASSERT_TRUE(rec.error.empty()) << rec.error;
    EXPECT_TRUE(test::hasNote(rec, "dpmpp_2m_sde is not implemented: dpmpp_2m ran instead"));
    EXPECT_TRUE(test::hasNote(rec, "scheduler align_your_steps is not implemented: normal ran"));
    EXPECT_EQ(rec.steps.size(), 2u);

    // Ancestral (ComfyUI's rectified-flow variant): the noise's source said; the same seed gives
    // the same image.
    const RunConfig a = comfy(2, "euler_ancestral", "beta");
    const RunRecord r1 = dev->run(a), r2 = dev->run(a);
    ASSERT_TRUE(r1.error.empty()) << r1.error;
    EXPECT_TRUE(test::hasNote(r1, "CPU generator seeded with the seed"));
    EXPECT_EQ(r1.steps[1].latentValues, r2.steps[1].latentValues);

    // A ComfyUI scheduler without a sampler is refused when the run starts.
    EXPECT_THROW(dev->run(comfy(2, "", "karras")), PipelineError);
}

// The dynamic shift's line from the run (ComfyUI's ModelSamplingFlux node, or a graph without
// it: mu 1.15 whatever the size) moves FLUX.1-dev's sigmas on both paths alike.
TEST_F(FlowComfy, TheShiftLineOfTheRunSetsFluxMu) {
    auto dev = Pipeline::load(s_files.dev.folder, PrecisionPlan(), test::kCpuPipeline);
    RunConfig c = comfy(2, "euler", "simple");
    c.maxShift = c.baseShift = 1.15;
    const double e = std::exp(1.15);
    const double want = e / (e + 1 / 0.5 - 1);  // ModelSamplingFlux at t = 1/2, mu 1.15
    const RunRecord flat = dev->run(c);
    ASSERT_TRUE(flat.error.empty()) << flat.error;
    EXPECT_NEAR(flat.steps[1].sigma, want, 1e-6);
    RunConfig own = c;
    own.comfySampler.clear();
    own.comfyScheduler.clear();
    EXPECT_NEAR(dev->run(own).steps[1].sigma, want, 1e-6);
    // The config's own line gives the tiny image's 24 tokens a smaller mu.
    const double mu = tinyFluxMu(), f = std::exp(mu);
    EXPECT_NEAR(dev->run(comfy(2, "euler", "simple")).steps[1].sigma, f / (f + 1), 1e-6);
}

// Cosmos-Predict2 as ComfyUI samples it: ModelSamplingCosmosRFlow's table
// exp(linspace(log 0.002, log 80, 1000)), the simple schedule's picks from its top, the start
// noise * sigma_0, the x0 estimate (1 - t) x - t out at t = sigma / (sigma + 1), Euler on it.
TEST(Cosmos2Comfy, EulerSimpleStepsTheRFlowTable) {
    test::ScopedDir dir("cosmos2_comfy");
    auto p = Pipeline::load(test::writeTinyCosmos2(dir.path), PrecisionPlan(), test::kCpuPipeline);
    RunConfig c = test::tinyRunConfig("a robot arm picks up a red cube", 3, 4.0, 16, 16, 3);
    c.comfySampler = "euler";
    c.comfyScheduler = "simple";
    const RunRecord r = p->run(c);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.steps.size(), 3u);
    EXPECT_TRUE(r.notes.empty()) << r.notes.front();
    auto table = [](int k) {
        return std::exp(std::log(0.002) + k * (std::log(80.0) - std::log(0.002)) / 999);
    };
    // simple: 1000 / 3 entries apart from the top, sigmas[-(1 + int(x * 1000 / 3))], then 0.
    const std::vector<double> sigmas = {table(999), table(666), table(333), 0.0};
    torch::Tensor x = seedNoise(c.seed, r.steps[0]) * sigmas[0];
    for (size_t i = 0; i < 3; ++i) {
        const StepRecord& s = r.steps[i];
        EXPECT_NEAR(s.sigma, sigmas[i], 1e-5 * sigmas[i]) << i;
        EXPECT_NEAR(s.timestep, sigmas[i] / (sigmas[i] + 1), 1e-6) << i;
        const torch::Tensor den = recorded(s, s.denoisedValues);
        const torch::Tensor want = x + (sigmas[i + 1] - sigmas[i]) * (x - den) / sigmas[i];
        const torch::Tensor got = recorded(s, s.latentValues);
        EXPECT_LT(test::relErr(got, want), 1e-5) << i;
        x = got;
    }
    // Unguided (cfg 1), step 0 is the pipeline's own: both start at sigma 80 from the same noise.
    c.guidance = 1.0;
    RunConfig own = c;
    own.comfySampler.clear();
    own.comfyScheduler.clear();
    const RunRecord a = p->run(c), b = p->run(own);
    EXPECT_LT(test::relErr(recorded(a.steps[0], a.steps[0].denoisedValues),
                           recorded(b.steps[0], b.steps[0].denoisedValues)),
              1e-6);
    // Then the schedules part: ComfyUI's simple steps are not the pipeline's Karras ones.
    EXPECT_GT(std::abs(a.steps[1].sigma - b.steps[1].sigma), 0.1);  // 2.34 against 2.52
}

}  // namespace
}  // namespace hs
