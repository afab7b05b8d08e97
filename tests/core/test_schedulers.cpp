// diffusers' classic schedulers through the common interface (sampling/scheduler.h): the golden
// cases of sched_io.safetensors (made with diffusers itself), further configurations against
// tests/data/sched (made by bench/reference/scheduler_reference.py make tests/data/sched, a
// numpy/torch port of the diffusers classes that reproduces the golden cases exactly), invariants
// that can be checked by hand, errors, and the sampler switch.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "models/common/config.h"
#include "models/common/named_tensors.h"
#include "sampling/ddim.h"
#include "sampling/scheduler.h"
#include "sd_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

using test::dataPath;
using test::relErr;

nlohmann::json loadJsonSchedulers(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

struct Data {
    nlohmann::json goldenCases, refCases;
    NamedTensors golden, ref;
};

const Data& data() {
    static const Data d = [] {
        Data r;
        r.goldenCases = loadJsonSchedulers(dataPath("golden/manifest.json"))["schedulers"]["cases"];
        r.golden = test::readTensorsFile(dataPath("golden/sched_io.safetensors"));
        r.refCases = loadJsonSchedulers(dataPath("sched/cases.json"))["cases"];
        r.ref = test::readTensorsFile(dataPath("sched/sched_ref.safetensors"));
        return r;
    }();
    return d;
}

// A case of the manifest form {"class", "config", "num_inference_steps", "set_timesteps_kwargs",
// "eta"} as a scheduler with its schedule set.
std::unique_ptr<Scheduler> schedulerForSchedulers(const nlohmann::json& c) {
    nlohmann::json config = c.at("config");
    config["_class_name"] = c.at("class");
    auto s = makeScheduler(config);
    if (c.contains("eta")) dynamic_cast<DdimScheduler&>(*s).setEta(c["eta"].get<double>());
    ScheduleOptions o;
    const auto& kw = c.at("set_timesteps_kwargs");
    if (kw.contains("mu")) o.mu = kw["mu"].get<double>();
    if (kw.contains("sigmas")) o.sigmas = kw["sigmas"].get<std::vector<double>>();
    s->setTimesteps(c.at("num_inference_steps").get<int>(), o);
    return s;
}

// Runs the golden convention and returns the worst relative error over all reference tensors.
double runAgainst(const std::string& name, const nlohmann::json& c, const NamedTensors& io) {
    auto s = schedulerForSchedulers(c);
    const std::string pre = "out." + name + ".";
    double worst = relErr(s->timesteps(), io.at(pre + "timesteps"));
    EXPECT_EQ(s->timesteps().size(0), io.at(pre + "timesteps").size(0));
    if (io.count(pre + "sigmas")) {
        EXPECT_EQ(s->sigmas().size(0), io.at(pre + "sigmas").size(0));
        worst = std::max(worst, relErr(s->sigmas(), io.at(pre + "sigmas")));
    }
    torch::Tensor x = io.at("in.x0") * s->initNoiseSigma();
    int steps = 0;
    for (int i = 0; io.count(pre + "prev_sample." + std::to_string(i)); ++i, ++steps) {
        const std::string k = std::to_string(i);
        const auto scaled = s->scaleModelInput(x, i);
        const std::string sk = pre + "scaled_input." + k;  // the FlowMatch cases have none
        const double es = io.count(sk) ? relErr(scaled, io.at(sk)) : 0.0;
        torch::Tensor noise;
        if (s->stochastic()) noise = io.at("in.noise." + k);
        x = s->step(io.at("in.model_output." + k), i, x, noise).prevSample;
        const double ep = relErr(x, io.at(pre + "prev_sample." + k));
        EXPECT_LE(std::max(es, ep), 1e-4) << name << " step " << i;
        worst = std::max({worst, es, ep});
    }
    EXPECT_EQ(steps, s->numSteps()) << name;
    return worst;
}

TEST(Schedulers, GoldenCasesOfDiffusers) {
    for (const auto& kv : data().goldenCases.items()) {
        SCOPED_TRACE(kv.key());
        const double worst = runAgainst(kv.key(), kv.value(), data().golden);
        std::printf("  %-26s worst relative error %.2e\n", kv.key().c_str(), worst);
        EXPECT_LE(worst, 1e-4);
    }
}

TEST(Schedulers, ReferenceConfigurations) {
    ASSERT_GE(data().refCases.size(), 25u);
    for (const auto& kv : data().refCases.items()) {
        SCOPED_TRACE(kv.key());
        const double worst = runAgainst(kv.key(), kv.value(), data().ref);
        std::printf("  %-34s %-32s worst relative error %.2e\n", kv.key().c_str(),
                    kv.value()["class"].get<std::string>().c_str(), worst);
        EXPECT_LE(worst, 1e-4);
    }
}

nlohmann::json sd(const char* cls) {
    return {{"_class_name", cls},
            {"beta_start", 0.00085},
            {"beta_end", 0.012},
            {"beta_schedule", "scaled_linear"},
            {"num_train_timesteps", 1000}};
}

// x_t on the forward process of a given x0 and noise, for a model that predicts the noise
// exactly.
TEST(Schedulers, DdimWithEtaZeroAndPerfectNoisePredictionRecoversX0) {
    auto cfg = sd("DDIMScheduler");
    cfg["set_alpha_to_one"] = true;
    cfg["clip_sample"] = false;
    auto s = makeScheduler(cfg);
    s->setTimesteps(10);
    torch::manual_seed(3);
    auto x0 = torch::randn({1, 4, 8, 8}), eps = torch::randn({1, 4, 8, 8});
    const double acp = 1.0 / (1.0 + std::pow(s->sigmas()[0].item<double>(), 2));
    auto x = std::sqrt(acp) * x0 + std::sqrt(1 - acp) * eps;  // x at timesteps[0]
    SchedulerStep r;
    for (int i = 0; i < s->numSteps(); ++i) {
        r = s->step(eps, i, x);
        EXPECT_LT(relErr(r.predOriginal, x0), 1e-4) << "step " << i;
        x = r.prevSample;
    }
    EXPECT_LT(relErr(x, x0), 1e-5);
}

TEST(Schedulers, EulerEndsOnItsX0EstimateAndFollowsAPerfectNoisePrediction) {
    for (const char* spacing : {"leading", "trailing", "linspace"}) {
        SCOPED_TRACE(spacing);
        auto cfg = sd("EulerDiscreteScheduler");
        cfg["timestep_spacing"] = spacing;
        cfg["steps_offset"] = 1;
        auto s = makeScheduler(cfg);
        s->setTimesteps(8);
        EXPECT_EQ(s->sigmas()[-1].item<float>(), 0.0f);
        torch::manual_seed(4);
        auto x0 = torch::randn({2, 4, 4, 4}), eps = torch::randn({2, 4, 4, 4});
        // Karras' sigma parameterisation: x_i = x0 + sigma_i eps; the ODE's derivative is eps.
        auto x = x0 + s->sigmas()[0].item<double>() * eps;
        SchedulerStep r;
        for (int i = 0; i < s->numSteps(); ++i) {
            r = s->step(eps, i, x);
            x = r.prevSample;
        }
        EXPECT_LT(relErr(x, r.predOriginal), 1e-6);  // final sigma 0: x_n is the last x0 estimate
        EXPECT_LT(relErr(x, x0), 1e-5);
        const double sMax = s->sigmas().max().item<double>();
        EXPECT_NEAR(s->initNoiseSigma(),
                    std::string(spacing) == "leading" ? std::sqrt(sMax * sMax + 1) : sMax, 1e-5);
    }
}

TEST(Schedulers, DpmSolverPlusPlusWithPerfectPredictionRecoversX0) {
    for (bool karras : {false, true}) {
        SCOPED_TRACE(karras);
        auto cfg = sd("DPMSolverMultistepScheduler");
        cfg["use_karras_sigmas"] = karras;
        auto s = makeScheduler(cfg);
        s->setTimesteps(20);  // >= 15: no lower-order steps before the final one
        torch::manual_seed(5);
        auto x0 = torch::randn({1, 4, 8, 8}), eps = torch::randn({1, 4, 8, 8});
        const double sigma = s->sigmas()[0].item<double>(),
                     alpha = 1 / std::sqrt(sigma * sigma + 1);
        auto x = alpha * x0 + alpha * sigma * eps;  // DPM's x_t = alpha_t x0 + sigma_t eps
        for (int i = 0; i < s->numSteps(); ++i) {
            const double sg = s->sigmas()[i].item<double>(), a = 1 / std::sqrt(sg * sg + 1);
            auto epsPred = (x - a * x0) / (a * sg);  // the noise that explains x exactly
            x = s->step(epsPred, i, x).prevSample;
        }
        EXPECT_LT(relErr(x, x0), 1e-4);
    }
}

TEST(Schedulers, StochasticSamplersUseTheCallersNoiseOrTheGenerator) {
    auto cfg = sd("EulerAncestralDiscreteScheduler");
    auto s = makeScheduler(cfg);
    ASSERT_TRUE(s->stochastic());
    s->setTimesteps(4);
    torch::manual_seed(6);
    auto x = torch::randn({1, 4, 4, 4}), mo = torch::randn({1, 4, 4, 4});
    auto n = torch::randn({1, 4, 4, 4});
    auto a = s->step(mo, 1, x, n).prevSample, b = s->step(mo, 1, x, n).prevSample;
    EXPECT_TRUE(torch::equal(a, b));
    auto g1 = at::detail::createCPUGenerator(42), g2 = at::detail::createCPUGenerator(42);
    auto c = s->step(mo, 1, x, {}, g1).prevSample, d = s->step(mo, 1, x, {}, g2).prevSample;
    EXPECT_TRUE(torch::equal(c, d));
    EXPECT_FALSE(torch::equal(a, c));
    // Zero noise lands at sigma_down: sigma_up^2 + sigma_down^2 = sigma_{i+1}^2.
    auto z = s->step(mo, 1, x, torch::zeros_like(x));
    const double s0 = s->sigmas()[1].item<double>(), s1 = s->sigmas()[2].item<double>();
    const double up = std::sqrt(s1 * s1 * (s0 * s0 - s1 * s1) / (s0 * s0));
    const double down = std::sqrt(s1 * s1 - up * up);
    auto expect = x + (x - z.predOriginal) / s0 * (down - s0);
    EXPECT_LT(relErr(z.prevSample, expect), 1e-5);
    // DDIM is deterministic at eta 0 and stochastic above.
    auto ddim = makeScheduler(sd("DDIMScheduler"));
    EXPECT_FALSE(ddim->stochastic());
    dynamic_cast<DdimScheduler&>(*ddim).setEta(0.5);
    EXPECT_TRUE(ddim->stochastic());
}

TEST(Schedulers, MultistepSolversRunInOrder) {
    auto s = makeScheduler(sd("DPMSolverMultistepScheduler"));
    s->setTimesteps(6);
    auto x = torch::randn({1, 4, 4, 4});
    s->step(x, 0, x);
    EXPECT_THROW(s->step(x, 2, x), std::invalid_argument);
    s->step(x, 1, x);
    EXPECT_NO_THROW(s->step(x, 0, x));  // step 0 starts afresh
    EXPECT_THROW(s->step(x, 6, x), std::invalid_argument);
    EXPECT_THROW(s->step(x, 1, torch::zeros({1, 4, 4, 5})), std::invalid_argument);
}

void expectConfigError(const nlohmann::json& cfg, const std::string& needle) {
    try {
        makeScheduler(cfg);
        ADD_FAILURE() << "no error for " << cfg.dump();
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(Schedulers, UnsupportedClassesAndOptionsAreNamed) {
    expectConfigError(sd("LMSDiscreteScheduler"), "LMSDiscreteScheduler");
    expectConfigError(sd("LMSDiscreteScheduler"), "PNDMScheduler");  // lists supported
    expectConfigError(nlohmann::json{{"beta_start", 0.1}}, "_class_name");
    // Each option alone on the class's SD config, refused naming `needle`.
    struct Option {
        const char* scheduler;
        const char* key;
        nlohmann::json value;
        const char* needle;
    };
    for (const Option& o : std::vector<Option>{
             {"DDIMScheduler", "thresholding", true, "'thresholding'"},
             {"EulerDiscreteScheduler", "use_exponential_sigmas", true, "'use_exponential_sigmas'"},
             {"EulerDiscreteScheduler", "interpolation_type", "log_linear", "'interpolation_type'"},
             {"EulerDiscreteScheduler", "timestep_spacing", "sideways", "'timestep_spacing'"},
             {"EulerDiscreteScheduler", "beta_schedule", "sigmoid", "'beta_schedule'"},
             {"DPMSolverMultistepScheduler", "use_lu_lambdas", true, "'use_lu_lambdas'"},
             {"DPMSolverMultistepScheduler", "algorithm_type", "dpmsolver", "'final_sigmas_type'"},
             {"DPMSolverMultistepScheduler", "solver_order", 4, "'solver_order'"},
             {"DPMSolverMultistepScheduler", "variance_type", "learned_range", "'variance_type'"},
             {"EulerAncestralDiscreteScheduler", "prediction_type", "sample",
              "'prediction_type'"}}) {
        auto cfg = sd(o.scheduler);
        cfg[o.key] = o.value;
        expectConfigError(cfg, o.needle);
    }
    auto flow = nlohmann::json{{"_class_name", "FlowMatchEulerDiscreteScheduler"},
                               {"use_karras_sigmas", true}};
    expectConfigError(flow, "'use_karras_sigmas'");
    // Keys the class does not take are ignored (as diffusers does with another class's config).
    auto euler = sd("EulerDiscreteScheduler");
    euler["skip_prk_steps"] = true;
    euler["clip_sample"] = false;
    EXPECT_NO_THROW(makeScheduler(euler));
}

TEST(Schedulers, BadScheduleRequestsThrowInvalidArgument) {
    auto euler = makeScheduler(sd("EulerDiscreteScheduler"));
    EXPECT_THROW(euler->setTimesteps(0), std::invalid_argument);
    EXPECT_THROW(euler->setTimesteps(1000000), std::invalid_argument);
    EXPECT_THROW(euler->setTimesteps(5, {0.8, std::nullopt}), std::invalid_argument);
    EXPECT_THROW(euler->step(torch::zeros({1}), 0, torch::zeros({1})), std::invalid_argument);
    auto ddim = makeScheduler(sd("DDIMScheduler"));
    EXPECT_THROW(ddim->setTimesteps(1001), std::invalid_argument);
    auto dpm = makeScheduler(sd("DPMSolverMultistepScheduler"));
    EXPECT_THROW(dpm->setTimesteps(5, {std::nullopt, std::vector<double>{1.0, 0.0}}),
                 std::invalid_argument);
    auto flow = makeScheduler(
        {{"_class_name", "FlowMatchEulerDiscreteScheduler"}, {"use_dynamic_shifting", true}});
    EXPECT_THROW(flow->setTimesteps(4), std::invalid_argument);  // needs mu
    flow->setTimesteps(0, {0.5, std::vector<double>{1.0, 0.75, 0.5, 0.25}});
    EXPECT_EQ(flow->numSteps(), 4);
    EXPECT_EQ(flow->predictionType(), "flow");
}

TEST(Schedulers, SwitchingKeepsTheTrainingScheduleAndSetsTheSampler) {
    const auto base = test::sd15SchedulerConfig();
    EXPECT_EQ(switchScheduler(base, ""), base);
    ASSERT_EQ(schedulerChoices().size(), 6u);
    const std::map<std::string, std::string> cls = {
        {"euler", "EulerDiscreteScheduler"},
        {"euler_a", "EulerAncestralDiscreteScheduler"},
        {"ddim", "DDIMScheduler"},
        {"dpmpp_2m", "DPMSolverMultistepScheduler"},
        {"dpmpp_2m_karras", "DPMSolverMultistepScheduler"},
        {"pndm", "PNDMScheduler"}};
    for (const auto& c : schedulerChoices()) {
        SCOPED_TRACE(c.id);
        const auto j = switchScheduler(base, c.id);
        EXPECT_EQ(j["_class_name"], cls.at(c.id));
        EXPECT_EQ(j["steps_offset"], 1);
        EXPECT_EQ(j["beta_schedule"], "scaled_linear");
        auto s = makeScheduler(j);
        EXPECT_EQ(s->className(), cls.at(c.id));
        s->setTimesteps(10);
        EXPECT_EQ(s->numSteps(), c.id == "pndm" ? 11 : 10);  // PLMS: one call more
    }
    const auto k = switchScheduler(base, "dpmpp_2m_karras");
    EXPECT_EQ(k["use_karras_sigmas"], true);
    EXPECT_EQ(k["algorithm_type"], "dpmsolver++");
    EXPECT_EQ(k["solver_order"], 2);
    EXPECT_EQ(switchScheduler(base, "dpmpp_2m")["use_karras_sigmas"], false);
    // DDIM keeps the model's set_alpha_to_one / clip_sample: the timesteps are SD's leading ones.
    auto ddim = makeScheduler(switchScheduler(base, "ddim"));
    ddim->setTimesteps(5);
    EXPECT_EQ(ddim->timestep(0), 801);
    // An override wins over "_use_default_values" of the base.
    auto euler = sd("EulerDiscreteScheduler");
    euler["_use_default_values"] = {"use_karras_sigmas", "timestep_spacing"};
    const auto e = switchScheduler(euler, "dpmpp_2m_karras");
    EXPECT_EQ(e["_use_default_values"], nlohmann::json::array({"timestep_spacing"}));
    EXPECT_THROW(switchScheduler(base, "heun"), ConfigError);
    EXPECT_THROW(switchScheduler({{"_class_name", "FlowMatchEulerDiscreteScheduler"}}, "euler"),
                 ConfigError);
}

TEST(Schedulers, SdxlConfigSwitchedToDpmKarrasMatchesTheReference) {
    // SDXL's Euler config re-targeted: with Karras sigmas the spacing no longer matters, so the
    // schedule and steps are those of the reference case dpmpp_2m_karras (SD betas, offset 1).
    nlohmann::json sdxl = data().refCases["euler_sdxl"]["config"];
    sdxl["_class_name"] = "EulerDiscreteScheduler";
    nlohmann::json c = data().refCases["dpmpp_2m_karras"];
    c["class"] = "DPMSolverMultistepScheduler";
    auto switched = switchScheduler(sdxl, "dpmpp_2m_karras");
    switched.erase("_class_name");
    c["config"] = switched;
    EXPECT_LE(runAgainst("dpmpp_2m_karras", c, data().ref), 1e-4);
}

}  // namespace
}  // namespace hs
