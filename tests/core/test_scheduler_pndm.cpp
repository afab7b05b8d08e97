// diffusers' PNDMScheduler (sampling/pndm.h): the PNDM cases of tests/data/sched (made by
// bench/reference/scheduler_reference.py make tests/data/sched, whose port reproduces diffusers'
// own scheduling_pndm.py bit for bit) through makeScheduler and through run-scheduler, schedules
// checked by hand, a perfect noise prediction followed exactly, errors, and the sampler choice.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "../records/run_config_of.h"
#include "io/safetensors.h"
#include "models/common/config.h"
#include "models/common/named_tensors.h"
#include "pipeline/pipeline.h"
#include "sampling/scheduler.h"
#include "sd_fixture.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace hs {
namespace {

using test::dataPath;
using test::relErr;

struct RefData {
    nlohmann::json cases;  // the PNDMScheduler cases only
    NamedTensors io;
};

const RefData& ref() {
    static const RefData d = [] {
        RefData r;
        std::ifstream in(dataPath("sched/cases.json"));
        const auto all = nlohmann::json::parse(in);
        for (const auto& kv : all.at("cases").items())
            if (kv.value()["class"] == "PNDMScheduler") r.cases[kv.key()] = kv.value();
        r.io = test::readTensorsFile(dataPath("sched/sched_ref.safetensors"));
        return r;
    }();
    return d;
}

// A case's config as a scheduler_config.json.
nlohmann::json configOf(const std::string& name) {
    nlohmann::json c = ref().cases.at(name).at("config");
    c["_class_name"] = "PNDMScheduler";
    return c;
}

std::vector<int64_t> timestepsOf(const Scheduler& s) {
    auto t = s.timesteps().to(torch::kInt64).contiguous();
    return {t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel()};
}

TEST(Schedulers, PndmReferenceCasesStepForStep) {
    ASSERT_GE(ref().cases.size(), 6u);
    for (const auto& kv : ref().cases.items()) {
        SCOPED_TRACE(kv.key());
        const std::string pre = "out." + kv.key() + ".";
        auto s = makeScheduler(configOf(kv.key()));
        ASSERT_EQ(s->className(), "PNDMScheduler");
        s->setTimesteps(kv.value()["num_inference_steps"].get<int>());
        ASSERT_EQ(s->numSteps(), kv.value()["steps_run"].get<int>());
        EXPECT_TRUE(torch::equal(s->timesteps(), ref().io.at(pre + "timesteps")));
        EXPECT_EQ(s->sigmas().size(0), s->numSteps() + 1);
        EXPECT_EQ(s->initNoiseSigma(), 1.0);
        torch::Tensor x = ref().io.at("in.x0");
        double worst = 0;
        for (int i = 0; i < s->numSteps(); ++i) {
            const std::string k = std::to_string(i);
            EXPECT_TRUE(torch::equal(s->scaleModelInput(x, i), x));  // identity
            const auto r = s->step(ref().io.at("in.model_output." + k), i, x);
            x = r.prevSample;
            EXPECT_EQ(r.predOriginal.scalar_type(), torch::kFloat32);
            worst = std::max(worst, relErr(x, ref().io.at(pre + "prev_sample." + k)));
        }
        std::printf("  %-26s %2d calls, worst relative error %.2e\n", kv.key().c_str(),
                    s->numSteps(), worst);
        EXPECT_LE(worst, 1e-5);
    }
}

TEST(Schedulers, PndmTimestepsAsDiffusersSetsThem) {
    auto s = makeScheduler(test::sd15SchedulerConfig());
    s->setTimesteps(5);  // PLMS: the second entry repeated, n + 1 model calls
    EXPECT_EQ(timestepsOf(*s), (std::vector<int64_t>{801, 601, 601, 401, 201, 1}));
    s->setTimesteps(1);
    EXPECT_EQ(timestepsOf(*s), (std::vector<int64_t>{1}));
    auto c = test::sd15SchedulerConfig();
    c["timestep_spacing"] = "linspace";
    s = makeScheduler(c);
    s->setTimesteps(5);  // linspace(0, 999, 5).round(), half to even: 499.5 -> 500
    EXPECT_EQ(timestepsOf(*s), (std::vector<int64_t>{999, 749, 749, 500, 250, 0}));
    c["timestep_spacing"] = "trailing";
    s = makeScheduler(c);
    s->setTimesteps(3);
    EXPECT_EQ(timestepsOf(*s), (std::vector<int64_t>{999, 666, 666, 332}));
    // The class's default (skip_prk_steps false): the four Runge-Kutta groups (t, t - 83,
    // t - 83, t - 166) over the top four timesteps, then PLMS over the rest: n + 9 calls.
    c = test::sd15SchedulerConfig();
    c.erase("skip_prk_steps");
    s = makeScheduler(c);
    s->setTimesteps(6);
    EXPECT_EQ(timestepsOf(*s), (std::vector<int64_t>{831, 748, 748, 665, 665, 582, 582, 499, 499,
                                                     416, 416, 333, 333, 167, 1}));
}

// x_t = sqrt(acp_t) x0 + sqrt(1 - acp_t) eps with a model that predicts eps exactly: every PLMS
// and Runge-Kutta combination of equal outputs is eps, and eq. (9) is then exact, so each call
// sees x on the trajectory at its timestep and the last lands at the final alpha (leading
// spacing: the steps the formulas assume, N / n, are the real ones).
TEST(Schedulers, PndmFollowsAPerfectNoisePredictionExactly) {
    for (bool skipPrk : {true, false}) {
        for (bool alphaOne : {false, true}) {
            SCOPED_TRACE(std::string(skipPrk ? "plms" : "prk") + (alphaOne ? " alpha 1" : ""));
            auto c = test::sd15SchedulerConfig();
            c["skip_prk_steps"] = skipPrk;
            c["set_alpha_to_one"] = alphaOne;
            auto s = makeScheduler(c);
            s->setTimesteps(10);
            EXPECT_EQ(s->numSteps(), skipPrk ? 11 : 19);
            torch::manual_seed(7);
            auto x0 = torch::randn({1, 4, 8, 8}), eps = torch::randn({1, 4, 8, 8});
            const auto sig = s->sigmas();  // sqrt((1 - acp) / acp) at each call, then final
            auto onTrajectory = [&](int j) {
                const double acp = 1.0 / (1.0 + std::pow(sig[j].item<double>(), 2));
                return std::sqrt(acp) * x0 + std::sqrt(1 - acp) * eps;
            };
            auto x = onTrajectory(0);
            for (int i = 0; i < s->numSteps(); ++i) {
                EXPECT_LT(relErr(x, onTrajectory(i)), 2e-5) << "call " << i;
                const auto r = s->step(eps, i, x);
                EXPECT_LT(relErr(r.predOriginal, x0), 2e-4) << "call " << i;
                x = r.prevSample;
            }
            EXPECT_LT(relErr(x, onTrajectory(s->numSteps())), 2e-5);
            if (alphaOne) EXPECT_LT(relErr(x, x0), 2e-5);
        }
    }
}

TEST(Schedulers, PndmVPredictionPreviewIsTheDdimX0) {
    auto c = test::sd15SchedulerConfig();
    c["prediction_type"] = "v_prediction";
    auto s = makeScheduler(c);
    EXPECT_EQ(s->predictionType(), "v_prediction");
    s->setTimesteps(4);
    torch::manual_seed(8);
    auto x0 = torch::randn({1, 4, 4, 4}), eps = torch::randn({1, 4, 4, 4});
    const double acp = 1.0 / (1.0 + std::pow(s->sigmas()[0].item<double>(), 2));
    auto x = std::sqrt(acp) * x0 + std::sqrt(1 - acp) * eps;
    auto v = std::sqrt(acp) * eps - std::sqrt(1 - acp) * x0;
    EXPECT_LT(relErr(s->step(v, 0, x).predOriginal, x0), 1e-5);
}

template <typename E>
std::string errorOfSchedulerPndm(const std::function<void()>& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
}

TEST(Schedulers, PndmErrorsAreNamed) {
    auto c = test::sd15SchedulerConfig();
    c["prediction_type"] = "sample";  // diffusers' PNDM takes epsilon and v_prediction only
    EXPECT_NE(
        errorOfSchedulerPndm<ConfigError>([&] { makeScheduler(c); }).find("'prediction_type'"),
        std::string::npos);
    c = test::sd15SchedulerConfig();
    c["skip_prk_steps"] = false;
    auto prk = makeScheduler(c);
    EXPECT_NE(errorOfSchedulerPndm<std::invalid_argument>([&] {
                  prk->setTimesteps(3);
              }).find("skip_prk_steps"),
              std::string::npos);
    c = test::sd15SchedulerConfig();
    c["steps_offset"] = -1;  // timestep -1
    auto neg = makeScheduler(c);
    EXPECT_NE(errorOfSchedulerPndm<std::invalid_argument>([&] {
                  neg->setTimesteps(5);
              }).find("steps_offset"),
              std::string::npos);
    auto s = makeScheduler(test::sd15SchedulerConfig());
    EXPECT_THROW(s->setTimesteps(1001), std::invalid_argument);
    EXPECT_THROW(s->setTimesteps(5, {0.5, std::nullopt}), std::invalid_argument);
    EXPECT_THROW(s->step(torch::zeros({1}), 0, torch::zeros({1})), std::invalid_argument);
    s->setTimesteps(5);
    auto x = torch::randn({1, 4, 4, 4});
    s->step(x, 0, x);
    EXPECT_NE(
        errorOfSchedulerPndm<std::invalid_argument>([&] { s->step(x, 2, x); }).find("in order"),
        std::string::npos);
    EXPECT_THROW(s->step(x, 1, torch::zeros({1, 4, 4, 5})), std::invalid_argument);
    s->step(x, 1, x);
    EXPECT_NO_THROW(s->step(x, 0, x));  // step 0 starts afresh
}

TEST(Schedulers, PndmIsTheLastSamplerChoiceAndRunsPlms) {
    const auto& choices = schedulerChoices();
    ASSERT_EQ(choices.size(), 6u);
    EXPECT_EQ(choices[4].id, "dpmpp_2m_karras");  // the earlier choices keep their order
    EXPECT_EQ(choices.back().id, "pndm");
    EXPECT_EQ(choices.back().label, "PNDM (PLMS)");
    // From SD 2.1's DDIM config (no skip_prk_steps): PLMS, the training schedule and v kept.
    const nlohmann::json ddim = {{"_class_name", "DDIMScheduler"},
                                 {"beta_start", 0.00085},
                                 {"beta_end", 0.012},
                                 {"beta_schedule", "scaled_linear"},
                                 {"clip_sample", false},
                                 {"set_alpha_to_one", false},
                                 {"steps_offset", 1},
                                 {"prediction_type", "v_prediction"}};
    const auto j = switchScheduler(ddim, "pndm");
    EXPECT_EQ(j["_class_name"], "PNDMScheduler");
    EXPECT_EQ(j["skip_prk_steps"], true);
    auto s = makeScheduler(j);
    EXPECT_EQ(s->predictionType(), "v_prediction");
    s->setTimesteps(5);
    EXPECT_EQ(timestepsOf(*s), (std::vector<int64_t>{801, 601, 601, 401, 201, 1}));
    // A model's own PNDM config with the Runge-Kutta steps becomes PLMS when picked by id.
    auto own = test::sd15SchedulerConfig();
    own["skip_prk_steps"] = false;
    auto p = makeScheduler(switchScheduler(own, "pndm"));
    p->setTimesteps(10);
    EXPECT_EQ(p->numSteps(), 11);
}

// A temporary directory for the CLI's files, removed at the end of the scope.
struct ScopedDir {
    std::string path = test::tempDir("pndm-cli");
    ~ScopedDir() { fs::remove_all(path); }
    std::string writeJson(const std::string& name, const nlohmann::json& j) const {
        std::ofstream(path + "/" + name) << j.dump(1);
        return path + "/" + name;
    }
};

// run-scheduler with `args`; every out.<refName>.* of the reference against out.<name>.*.
void runCliAndCompare(const ScopedDir& dir, const std::string& args, const std::string& name,
                      const std::string& refName) {
    SCOPED_TRACE(refName);
    int status = -1;
    const std::string out = test::runCli("run-scheduler " + args + " --inputs " +
                                             dataPath("sched/sched_ref.safetensors") +
                                             " --output " + dir.path + "/out.st --json",
                                         status, /*stdoutOnly=*/true);
    ASSERT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["class"], "PNDMScheduler");
    EXPECT_EQ(j["steps"], ref().cases[refName]["steps_run"]);
    const auto got = test::readTensorsFile(dir.path + "/out.st");
    EXPECT_EQ(got.count("out." + name + ".sigmas"), 0u);  // diffusers' PNDM has none
    const std::string pre = "out." + refName + ".";
    int n = 0;
    double worst = 0;
    for (const auto& kv : ref().io) {
        if (kv.first.rfind(pre, 0) != 0) continue;
        const std::string key = "out." + name + "." + kv.first.substr(pre.size());
        ASSERT_TRUE(got.count(key)) << key;
        worst = std::max(worst, relErr(got.at(key), kv.second));
        ++n;
    }
    EXPECT_GE(n, 2 * j["steps"].get<int>() + 1);  // timesteps, scaled inputs, samples
    std::printf("  run-scheduler %-22s %2d calls, worst relative error %.2e\n", refName.c_str(),
                j["steps"].get<int>(), worst);
    EXPECT_LE(worst, 1e-5);
}

TEST(Schedulers, PndmThroughRunSchedulerCli) {
    const ScopedDir dir;
    // SD 1.5's scheduler_config.json as shipped: NAME is the file's stem.
    runCliAndCompare(dir,
                     "--config " +
                         dir.writeJson("scheduler_config.json", test::sd15SchedulerConfig()) +
                         " --steps 5",
                     "scheduler_config", "pndm_sd15");
    // A manifest-style case (class, config, num_inference_steps) with skip_prk_steps false.
    runCliAndCompare(
        dir, "--config " + dir.writeJson("prk.json", ref().cases["pndm_prk"]) + " --case prk",
        "prk", "pndm_prk");
}

// An SD 1.x folder whose own scheduler_config.json is SD 1.5's PNDM runs it (no substitute): one
// model call more than the steps asked, at PLMS's timesteps.
TEST(Schedulers, PndmIsTheOwnSchedulerOfAnSd15Folder) {
    const ScopedDir dir;
    const auto f = test::writeTinySd(dir.path, false, test::sd15SchedulerConfig());
    auto pipeline = Pipeline::load(f.folder, {}, PrecisionPlan{}, torch::Device(torch::kCPU));
    RunConfig cfg = test::runConfigOf("a lighthouse", 3, 6.0, 16, 16, 3);
    cfg.modelDir = f.folder;
    cfg.probeLevel = ProbeLevel::Off;
    const RunRecord rec = pipeline->run(cfg);
    EXPECT_TRUE(rec.notes.empty()) << rec.notes[0];
    ASSERT_EQ(rec.steps.size(), 4u);
    const std::vector<double> expect = {667, 334, 334, 1};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(rec.steps[i].timestep, expect[i]) << i;
        EXPECT_EQ(rec.steps[i].latent.nonFinite(), 0) << i;
        EXPECT_EQ(rec.steps[i].denoised.nonFinite(), 0) << i;
    }
    EXPECT_TRUE(std::isfinite(rec.image.mean));
}

}  // namespace
}  // namespace hs
