// halfscope-cli run-scheduler: the golden cases of diffusers (manifest-style configs) and
// reference configurations (diffusers scheduler_config.json files, caller noise, --sigmas, DDIM
// eta) through the built binary, and exit code 2 with a message naming the problem for bad
// options, configs and inputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "models/common/named_tensors.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace hs {
namespace {

using test::dataPath;
using test::relErr;
using test::runCli;

NamedTensors loadAllRunSchedulerCli(const std::string& path) {
    NamedTensors r;
    auto set = TensorSet::open(path);
    for (const auto& n : set.names()) r.emplace(n, set.tensor(n).clone());
    return r;
}

nlohmann::json loadJsonRunSchedulerCli(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

class RunSchedulerCli : public hs::test::TempDirTest {
protected:
    std::string writeJson(const std::string& name, const nlohmann::json& j) const {
        std::ofstream(path(name)) << j.dump(1);
        return path(name);
    }
    // Runs the CLI; returns the outputs, checks the exit status.
    NamedTensors run(const std::string& args, int expectStatus = 0) const {
        int status = -1;
        const std::string out =
            runCli("run-scheduler " + args + " --output " + path("out.st"), status);
        EXPECT_EQ(status, expectStatus) << out;
        return status == 0 ? loadAllRunSchedulerCli(path("out.st")) : NamedTensors{};
    }
    // Every reference tensor out.<refName>.* against out.<name>.* of `got`; the worst error.
    static double compare(const NamedTensors& got, const std::string& name, const NamedTensors& ref,
                          const std::string& refName) {
        double worst = 0;
        int n = 0;
        const std::string pre = "out." + refName + ".";
        for (const auto& kv : ref) {
            if (kv.first.rfind(pre, 0) != 0) continue;
            const std::string key = "out." + name + "." + kv.first.substr(pre.size());
            if (!got.count(key)) {
                ADD_FAILURE() << "missing " << key;
                continue;
            }
            EXPECT_EQ(got.at(key).sizes(), kv.second.sizes()) << key;
            worst = std::max(worst, relErr(got.at(key), kv.second));
            ++n;
        }
        EXPECT_GE(n, 6) << refName;
        return worst;
    }
};

TEST_F(RunSchedulerCli, GoldenCasesMatchDiffusers) {
    const auto cases =
        loadJsonRunSchedulerCli(dataPath("golden/manifest.json"))["schedulers"]["cases"];
    const auto golden = loadAllRunSchedulerCli(dataPath("golden/sched_io.safetensors"));
    ASSERT_EQ(cases.size(), 4u);
    for (const auto& kv : cases.items()) {
        SCOPED_TRACE(kv.key());
        const auto got = run("--config " + writeJson("case.json", kv.value()) + " --case " +
                             kv.key() + " --inputs " + dataPath("golden/sched_io.safetensors"));
        const double worst = compare(got, kv.key(), golden, kv.key());
        std::printf("  %-26s worst relative error %.2e\n", kv.key().c_str(), worst);
        EXPECT_LE(worst, 1e-4);
    }
}

TEST_F(RunSchedulerCli, DiffusersConfigsNoiseSigmasAndEta) {
    const auto cases = loadJsonRunSchedulerCli(dataPath("sched/cases.json"))["cases"];
    const std::string inputs = dataPath("sched/sched_ref.safetensors");
    const auto ref = loadAllRunSchedulerCli(inputs);
    auto diffusersConfig = [&](const std::string& name) {
        nlohmann::json c = cases[name]["config"];
        c["_class_name"] = cases[name]["class"];
        return c;
    };
    // SDXL's scheduler_config.json: NAME is the file's stem.
    auto got = run("--config " + writeJson("scheduler_config.json", diffusersConfig("euler_sdxl")) +
                   " --steps 12 --inputs " + inputs);
    EXPECT_LE(compare(got, "scheduler_config", ref, "euler_sdxl"), 1e-4);
    // Euler ancestral with the noise of in.noise.i.
    got = run("--config " + writeJson("a.json", diffusersConfig("euler_a_sd")) +
              " --steps 8 --case ea --inputs " + inputs);
    EXPECT_LE(compare(got, "ea", ref, "euler_a_sd"), 1e-4);
    // Caller-given sigmas, no --steps.
    std::string sigmas;
    for (const auto& s : cases["euler_custom_sigmas"]["set_timesteps_kwargs"]["sigmas"])
        sigmas += (sigmas.empty() ? "" : ",") + s.dump();
    got = run("--config " + writeJson("e.json", diffusersConfig("euler_custom_sigmas")) +
              " --sigmas " + sigmas + " --case cs --inputs " + inputs);
    EXPECT_LE(compare(got, "cs", ref, "euler_custom_sigmas"), 1e-4);
    // DDIM with eta > 0.
    got = run("--config " + writeJson("d.json", diffusersConfig("ddim_eta")) +
              " --steps 6 --eta 0.7 --case d --inputs " + inputs);
    EXPECT_LE(compare(got, "d", ref, "ddim_eta"), 1e-4);
    EXPECT_EQ(got.count("out.d.sigmas"), 0u);  // diffusers' DDIM has none
    // DPM++ 2M Karras, 12 steps.
    got = run("--config " + writeJson("k.json", diffusersConfig("dpmpp_2m_karras")) +
              " --steps 12 --case k --inputs " + inputs);
    EXPECT_LE(compare(got, "k", ref, "dpmpp_2m_karras"), 1e-4);
}

TEST_F(RunSchedulerCli, StochasticSamplersWithoutNoiseUseTheSeed) {
    const std::string cfg = writeJson(
        "a.json", {{"_class_name", "EulerAncestralDiscreteScheduler"}, {"beta_start", 0.00085}});
    std::vector<std::pair<std::string, torch::Tensor>> list;
    torch::manual_seed(1);
    list.emplace_back("in.x0", torch::randn({1, 4, 4, 4}));
    for (int i = 0; i < 3; ++i)
        list.emplace_back("in.model_output." + std::to_string(i), torch::randn({1, 4, 4, 4}));
    writeSafetensors(path("in.st"), list);
    const std::string args = "--config " + cfg + " --steps 3 --inputs " + path("in.st");
    const auto a = run(args + " --seed 7"), b = run(args + " --seed 7"),
               c = run(args + " --seed 8");
    ASSERT_TRUE(a.count("out.a.prev_sample.2") && c.count("out.a.prev_sample.2"));
    EXPECT_TRUE(torch::equal(a.at("out.a.prev_sample.2"), b.at("out.a.prev_sample.2")));
    EXPECT_FALSE(torch::equal(a.at("out.a.prev_sample.2"), c.at("out.a.prev_sample.2")));
}

// Writes in.x0 and in.model_output.0 .. 2 ([1, 4, 8, 8]) and a mis-shaped in.model_output.3.
std::vector<std::pair<std::string, torch::Tensor>> badInputs() {
    std::vector<std::pair<std::string, torch::Tensor>> list;
    list.emplace_back("in.x0", torch::zeros({1, 4, 8, 8}));
    for (int i = 0; i < 3; ++i)
        list.emplace_back("in.model_output." + std::to_string(i), torch::zeros({1, 4, 8, 8}));
    list.emplace_back("in.model_output.3", torch::zeros({1, 4, 8, 7}));
    return list;
}

struct BadCase {
    std::string args, needle, inputs = "";
};

void expectExitTwo(const std::vector<BadCase>& bad, const std::string& defaultInputs,
                   const std::string& output) {
    for (const auto& c : bad) {
        SCOPED_TRACE(c.args);
        int status = -1;
        const std::string in = c.inputs.empty() ? defaultInputs : c.inputs;
        const std::string out =
            runCli("run-scheduler " + c.args + " --inputs " + in + " --output " + output, status);
        EXPECT_EQ(status, 2) << out;
        EXPECT_NE(out.find(c.needle), std::string::npos) << out;
        EXPECT_FALSE(fs::exists(output));
    }
}

TEST_F(RunSchedulerCli, BadOptionsAndConfigsExitTwoAndNameTheProblem) {
    const std::string cfg =
        writeJson("euler.json", {{"_class_name", "EulerDiscreteScheduler"}, {"steps_offset", 1}});
    writeSafetensors(path("in.st"), badInputs());
    expectExitTwo(
        {
            {"--config " + cfg + " --steps 0", "--steps must be"},
            {"--config " + cfg + " --steps 99999999", "--steps must be"},
            {"--config " + cfg, "--steps"},
            {"--config " + cfg + " --steps 3 --eta 0.5", "--eta"},
            {"--config " + writeJson("p.json", {{"_class_name", "PNDMScheduler"}}) + " --steps 3",
             "PNDMScheduler"},
            {"--config " +
                 writeJson("t.json", {{"_class_name", "DDIMScheduler"}, {"thresholding", true}}) +
                 " --steps 3",
             "'thresholding'"},
        },
        path("in.st"), path("out.st"));
}

TEST_F(RunSchedulerCli, BadInputsExitTwoAndNameTheKey) {
    const std::string cfg =
        writeJson("euler.json", {{"_class_name", "EulerDiscreteScheduler"}, {"steps_offset", 1}});
    auto list = badInputs();
    writeSafetensors(path("in.st"), list);
    // With in.model_output.0 .. 2 only, five steps name the first missing one.
    writeSafetensors(path("in3.st"), {list.begin(), list.begin() + 4});
    expectExitTwo(
        {
            {"--config " + cfg + " --steps 5", "'in.model_output.3' has shape [1, 4, 8, 7]"},
            {"--config " + cfg + " --steps 5", "missing input 'in.model_output.3'", path("in3.st")},
            {"--config " + cfg + " --steps 3", "cases.json", dataPath("sched/cases.json")},
        },
        path("in.st"), path("out.st"));
}

}  // namespace
}  // namespace hs
