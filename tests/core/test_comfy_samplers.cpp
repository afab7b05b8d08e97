// ComfyUI's k-diffusion samplers (sampling/comfy_samplers.h) on a denoiser whose probability-flow
// ODE has a closed form: Gaussian data of standard deviation c, whose optimal denoiser is
// D(x, s) = x c^2 / (c^2 + s^2), and whose ODE dx/ds = (x - D) / s = x s / (c^2 + s^2) gives
// x(s) = x(s0) sqrt((c^2 + s^2) / (c^2 + s0^2)). Each sampler converges with its order; single
// steps equal the formulas written out by hand, ancestral noise included.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "sampling/comfy_samplers.h"

namespace hs {
namespace {

constexpr double kDataStd = 0.8;

torch::Tensor gaussianDenoise(const torch::Tensor& x, double s) {
    return x * (kDataStd * kDataStd / (kDataStd * kDataStd + s * s));
}

ComfyModelSampling sdSamplingForSamplers() {
    return ComfyModelSampling::discrete({{"_class_name", "EulerDiscreteScheduler"},
                                         {"beta_start", 0.00085},
                                         {"beta_end", 0.012},
                                         {"beta_schedule", "scaled_linear"}},
                                        ComfyPrediction::Eps);
}

// The error at the schedule's end (no final 0, so every step is the sampler's own), in float64.
double odeError(const std::string& sampler, int steps) {
    const double s0 = 8.0, sEnd = 0.1;
    std::vector<double> sigmas;
    for (int i = 0; i <= steps; ++i)
        sigmas.push_back(float(s0 * std::pow(sEnd / s0, double(i) / steps)));
    ComfySampler run(sampler, sigmas, sdSamplingForSamplers(), 0);
    auto x0 = torch::linspace(-2, 2, 16, torch::kFloat64).reshape({1, 1, 4, 4}) * sigmas[0];
    auto x = runComfySampler(run, x0, gaussianDenoise);
    const double c2 = kDataStd * kDataStd;
    auto exact =
        x0 * std::sqrt((c2 + sigmas.back() * sigmas.back()) / (c2 + sigmas[0] * sigmas[0]));
    return (x - exact).abs().max().item<double>();
}

TEST(ComfySamplers, DeterministicSamplersConvergeWithTheirOrder) {
    for (const auto& [sampler, order] : std::vector<std::pair<std::string, int>>{
             {"euler", 1}, {"ddim", 1}, {"heun", 2}, {"dpm_2", 2}, {"dpmpp_2m", 2}}) {
        const double e1 = odeError(sampler, 16), e2 = odeError(sampler, 32),
                     e3 = odeError(sampler, 64);
        const double want = std::pow(2.0, order);
        EXPECT_NEAR(e1 / e2, want, 0.25 * want) << sampler << " " << e1 << " " << e2;
        EXPECT_NEAR(e2 / e3, want, 0.2 * want) << sampler << " " << e2 << " " << e3;
        EXPECT_LT(e3, order == 1 ? 4e-2 : 1.5e-3) << sampler;  // of |x| up to 1.6
    }
}

TEST(ComfySamplers, EulersFirstStepIsTheFormula) {
    const std::vector<double> sigmas = {14.5, 7.0, 0.0};
    ComfySampler run("euler", sigmas, sdSamplingForSamplers(), 0);
    auto x = torch::randn({1, 4, 3, 3}, torch::kFloat64);
    const auto st = run.step(0, x, gaussianDenoise);
    const auto d = (x - gaussianDenoise(x, 14.5)) / 14.5;
    EXPECT_TRUE(torch::allclose(st.next, x + d * (7.0 - 14.5), 1e-12, 1e-12));
    EXPECT_TRUE(torch::allclose(st.denoised, gaussianDenoise(x, 14.5)));
    EXPECT_EQ(st.modelCalls, 1);
    // Heun's last step, to sigma 0, is an Euler step with one model call.
    ComfySampler heun("heun", sigmas, sdSamplingForSamplers(), 0);
    EXPECT_EQ(heun.step(0, x, gaussianDenoise).modelCalls, 2);
    EXPECT_EQ(heun.step(1, x, gaussianDenoise).modelCalls, 1);
    // DPM++ 2M's step to 0 and the ancestral one give the x0 estimate itself.
    ComfySampler dpm("dpmpp_2m", sigmas, sdSamplingForSamplers(), 0);
    dpm.step(0, x, gaussianDenoise);
    EXPECT_TRUE(torch::allclose(dpm.step(1, x, gaussianDenoise).next, gaussianDenoise(x, 7.0)));
}

TEST(ComfySamplers, AncestralStepsAddTheSeededCpuNoise) {
    const std::vector<double> sigmas = {10.0, 2.0, 0.0};
    const uint64_t seed = 1234;
    ComfySampler run("euler_ancestral", sigmas, sdSamplingForSamplers(), seed);
    auto x = torch::randn({1, 4, 2, 3});
    const auto st = run.step(0, x, gaussianDenoise);
    // get_ancestral_step(10, 2): up = sqrt(4 * (100 - 4) / 100), down = sqrt(4 - up^2).
    const double up = std::sqrt(4.0 * 96 / 100), down = std::sqrt(4 - up * up);
    auto gen = at::detail::createCPUGenerator(seed);
    const auto noise = torch::randn({1, 4, 2, 3}, gen, torch::kFloat32);
    const auto want = x + (x - gaussianDenoise(x, 10)) / 10 * (down - 10) + noise * up;
    EXPECT_TRUE(torch::allclose(st.next, want, 1e-5, 1e-5));
    EXPECT_TRUE(torch::equal(run.step(1, st.next, gaussianDenoise).next,
                             gaussianDenoise(st.next, 2.0)));  // sigma_down 0: x0 itself

    // LCM: the x0 estimate renoised to the next sigma with the same generator's numbers.
    ComfySampler lcm("lcm", sigmas, sdSamplingForSamplers(), seed);
    EXPECT_TRUE(torch::allclose(lcm.step(0, x, gaussianDenoise).next,
                                noise * 2.0 + gaussianDenoise(x, 10), 1e-6, 1e-6));
}

TEST(ComfySamplers, FlowAncestralUsesTheRectifiedFlowRenoise) {
    const ComfyModelSampling flow = ComfyModelSampling::discreteFlow(3.0);
    const std::vector<double> sigmas = {0.9, 0.6, 0.0};
    auto velocityDenoise = [](const torch::Tensor& x, double s) { return x * (1 - s) * 0.5; };
    ComfySampler run("euler_ancestral", sigmas, flow, 9);
    auto x = torch::randn({1, 16, 2, 2});
    const auto st = run.step(0, x, velocityDenoise);
    // eta 1: sigma_down = s' (1 + (s' / s - 1)) = s'^2 / s; alphas 1 - s' and 1 - sigma_down.
    const double s = 0.9, next = 0.6, down = next * next / s, aNext = 1 - next, aDown = 1 - down;
    const double renoise = std::sqrt(next * next - down * down * aNext * aNext / (aDown * aDown));
    const auto blended = down / s * x + (1 - down / s) * velocityDenoise(x, s);
    auto gen = at::detail::createCPUGenerator(9);
    const auto noise = torch::randn({1, 16, 2, 2}, gen, torch::kFloat32);
    EXPECT_TRUE(torch::allclose(st.next, aNext / aDown * blended + noise * renoise, 1e-5, 1e-5));
    // LCM on a flow model: s n + (1 - s) x0.
    ComfySampler lcm("lcm", sigmas, flow, 9);
    EXPECT_TRUE(torch::allclose(lcm.step(0, x, velocityDenoise).next,
                                0.6 * noise + 0.4 * velocityDenoise(x, 0.9), 1e-6, 1e-6));
}

TEST(ComfySamplers, Dpm2DropsThePenultimateSigma) {
    const ComfyModelSampling ms = sdSamplingForSamplers();
    const auto karras11 = comfySigmas(ms, "karras", 11);
    const auto s = comfySamplerSigmas(ms, "dpm_2", "karras", 10);
    ASSERT_EQ(s.size(), 11u);
    for (size_t i = 0; i < 10; ++i) EXPECT_EQ(s[i], karras11[i]) << i;
    EXPECT_EQ(s.back(), 0.0);
    EXPECT_EQ(comfySamplerSigmas(ms, "euler", "karras", 10), comfySigmas(ms, "karras", 10));
}

TEST(ComfySamplers, InitialLatentIsComfysNoiseScaling) {
    const ComfyModelSampling ms = sdSamplingForSamplers();
    const auto noise = torch::randn({1, 4, 2, 2});
    const float smax = float(ms.sigmaMax());
    EXPECT_TRUE(torch::allclose(comfyInitialLatent(ms, smax, noise),
                                noise * std::sqrt(1.0 + double(smax) * smax)));
    EXPECT_TRUE(torch::allclose(comfyInitialLatent(ms, 3.0, noise), noise * 3.0));
    const auto flow = ComfyModelSampling::discreteFlow(3.0);
    EXPECT_TRUE(torch::allclose(comfyInitialLatent(flow, 1.0, noise), noise));
}

TEST(ComfySamplers, UnimplementedSamplersNameTheirFallback) {
    EXPECT_EQ(resolveComfySampler("euler").sampler, "euler");
    EXPECT_EQ(resolveComfySampler("euler").note, "");
    const auto sde = resolveComfySampler("dpmpp_2m_sde");
    EXPECT_EQ(sde.sampler, "dpmpp_2m");
    EXPECT_NE(sde.note.find("dpmpp_2m_sde is not implemented: dpmpp_2m ran instead"),
              std::string::npos)
        << sde.note;
    EXPECT_EQ(resolveComfySampler("uni_pc").sampler, "dpmpp_2m");
    EXPECT_EQ(resolveComfySampler("dpmpp_2s_ancestral").sampler, "euler_ancestral");
    EXPECT_EQ(resolveComfySampler("heunpp2").sampler, "heun");
    const auto unknown = resolveComfySampler("my_custom");
    EXPECT_EQ(unknown.sampler, "euler");
    EXPECT_NE(unknown.note.find("not one of ComfyUI's samplers"), std::string::npos);
    EXPECT_THROW(ComfySampler("dpmpp_2m_sde", {1.0, 0.0}, sdSamplingForSamplers(), 0),
                 std::invalid_argument);
}

}  // namespace
}  // namespace hs
