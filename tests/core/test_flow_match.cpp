// diffusers FlowMatchEulerDiscreteScheduler: golden schedules and steps, the sampling loop,
// cancellation, the observer, calculate_shift.
#include <gtest/gtest.h>

#include <fstream>

#include "io/safetensors.h"
#include "models/common/config.h"
#include "models/common/named_tensors.h"
#include "sampling/flow_match.h"
#include "test_util.h"

namespace hs {
namespace {

using test::dataPath;
using test::relErr;

struct GoldenFlowMatch {
    nlohmann::json cases;
    NamedTensors io;
};

const GoldenFlowMatch& goldenFlowMatch() {
    static const GoldenFlowMatch g = [] {
        GoldenFlowMatch r;
        std::ifstream in(dataPath("golden/manifest.json"));
        r.cases = nlohmann::json::parse(in)["schedulers"]["cases"];
        auto set = TensorSet::open(dataPath("golden/sched_io.safetensors"));
        for (const auto& n : set.names()) r.io.emplace(n, set.tensor(n).clone());
        return r;
    }();
    return g;
}

const char* kCasesFlowMatch[] = {"flowmatch_shift3", "flowmatch_dynamic_mu0.8"};

FlowMatchEulerScheduler schedulerForFlowMatch(const std::string& name) {
    const auto& c = goldenFlowMatch().cases.at(name);
    EXPECT_EQ(c.at("class"), "FlowMatchEulerDiscreteScheduler");
    FlowMatchEulerScheduler s(FlowMatchConfig::fromJson(c.at("config")));
    std::optional<double> mu;
    if (c.at("set_timesteps_kwargs").contains("mu"))
        mu = c["set_timesteps_kwargs"]["mu"].get<double>();
    s.setTimesteps(c.at("num_inference_steps").get<int>(), mu);
    return s;
}

TEST(FlowMatch, GoldenSchedulesAndSteps) {
    const auto& io = goldenFlowMatch().io;
    for (const char* name : kCasesFlowMatch) {
        SCOPED_TRACE(name);
        auto s = schedulerForFlowMatch(name);
        const std::string pre = std::string("out.") + name + ".";
        ASSERT_EQ(s.numSteps(), 5);
        const double et = relErr(s.timesteps(), io.at(pre + "timesteps"));
        const double es = relErr(s.sigmas(), io.at(pre + "sigmas"));
        double worst = 0;
        torch::Tensor x = io.at("in.x0") * 1.0;  // init_noise_sigma = 1
        for (int i = 0; i < 5; ++i) {
            x = s.step(io.at("in.model_output." + std::to_string(i)), i, x);
            const double e = relErr(x, io.at(pre + "prev_sample." + std::to_string(i)));
            worst = std::max(worst, e);
            EXPECT_LE(e, 1e-5) << "step " << i;
        }
        std::printf("  %-26s timesteps %.2e  sigmas %.2e  worst prev_sample %.2e\n", name, et, es,
                    worst);
        EXPECT_LE(et, 1e-5);
        EXPECT_LE(es, 1e-5);
        EXPECT_EQ(s.sigma(5), 0.0);
    }
    // README: with shift 3 the last sigma is 0.0089, not 0.003.
    EXPECT_NEAR(schedulerForFlowMatch("flowmatch_shift3").sigma(4), 0.0089, 5e-5);
}

TEST(FlowMatch, ModelTimeAndDenoisedEstimateFollowThePipeline) {
    const auto& io = goldenFlowMatch().io;
    auto s = schedulerForFlowMatch("flowmatch_dynamic_mu0.8");
    torch::Tensor x = io.at("in.x0");
    for (int i = 0; i < 5; ++i) {
        // timesteps[i] / 1000 in float32: sigma, up to float32 rounding.
        EXPECT_NEAR(s.modelTime(i), s.sigma(i), 1e-6) << "step " << i;
        EXPECT_EQ(s.modelTime(i), double(float(s.timestep(i)) / 1000.f));
        const auto& v = io.at("in.model_output." + std::to_string(i));
        EXPECT_TRUE(torch::allclose(s.denoised(v, i, x), x - s.sigma(i) * v));
        EXPECT_EQ(s.denoised(v, i, x).scalar_type(), torch::kFloat32);
        x = s.step(v, i, x);
    }
    EXPECT_LE(relErr(x, io.at("out.flowmatch_dynamic_mu0.8.prev_sample.4")), 1e-5);
}

TEST(FlowMatch, ShiftRulesAndErrors) {
    EXPECT_NEAR(calculateShift(256), 0.5, 1e-12);
    EXPECT_NEAR(calculateShift(4096), 1.15, 1e-12);
    EXPECT_NEAR(calculateShift(1024), 0.5 + 0.65 * 768.0 / 3840.0, 1e-12);
    FlowMatchConfig dyn;
    dyn.useDynamicShifting = true;
    FlowMatchEulerScheduler s(dyn);
    EXPECT_THROW(s.setTimesteps(4), std::invalid_argument);  // mu required
    EXPECT_THROW(s.step(torch::zeros({1}), 0, torch::zeros({1})), std::invalid_argument);
    // FluxPipeline's schedule: linspace(1, 1/n, n), then time_shift(mu); sigma 1 stays 1.
    const double mu = calculateShift(1024, dyn);
    s.setSigmas(fluxPipelineSigmas(4), mu);
    ASSERT_EQ(s.numSteps(), 4);
    EXPECT_NEAR(s.sigma(0), 1.0, 1e-7);
    const double t = 0.25, e = std::exp(mu);
    EXPECT_NEAR(s.sigma(3), e / (e + (1 / t - 1)), 1e-6);
    EXPECT_EQ(s.sigma(4), 0.0);
    EXPECT_NEAR(s.timestep(3), s.sigma(3) * 1000, 1e-3);
    EXPECT_THROW(s.step(torch::zeros({1}), 4, torch::zeros({1})), std::invalid_argument);
    EXPECT_THROW(FlowMatchConfig::fromJson({{"use_karras_sigmas", true}}), ConfigError);
    EXPECT_THROW(FlowMatchConfig::fromJson({{"time_shift_type", "cubic"}}), ConfigError);
    EXPECT_THROW(FlowMatchConfig::fromJson({{"shift", "3"}}), ConfigError);
    auto lin =
        FlowMatchConfig::fromJson({{"use_dynamic_shifting", true}, {"time_shift_type", "linear"}});
    FlowMatchEulerScheduler sl(lin);
    sl.setTimesteps(3, 0.8);
    EXPECT_NEAR(sl.sigma(0), 0.8 / (0.8 + (1.0 / 1.0 - 1)), 1e-7);
}

}  // namespace
}  // namespace hs
