// halfscope-cli --target / --target-cc / --target-memory on the shipped demo model: the run stays
// emulated on this CPU while the advice, its weight totals and the report speak for the GPU the
// model will run on; bad values are usage errors (exit 2) that name the accepted forms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "diagnosis/device_info.h"
#include "test_util.h"

namespace fs = std::filesystem;
using hs::test::runCli;

namespace {

class CliTarget : public hs::test::TempDirTest {
protected:
    // A failing demo run (the transformer in fp16) with `target` options.
    std::string generate(const std::string& target, int& status, const std::string& report = "") {
        return runCli(
            "generate --prompt 'a large red circle in the centre, blue background' --seed 5 "
            "--steps 2 --plan transformer=fp16 --out " +
                path("fp16.png") + (report.empty() ? "" : " --report " + path(report)) + " " +
                target,
            status);
    }
};

std::string readFileCliTarget(const std::string& p) {
    std::ifstream f(p);
    return std::string((std::istreambuf_iterator<char>(f)), {});
}

}  // namespace

TEST_F(CliTarget, ATargetByNameNamesTheT4AndItsMemory) {
    int status = -1;
    const std::string out = generate("--target t4", status, "t4.html");
    EXPECT_EQ(status, 1) << out;  // the demo's fp16 run holds NaN
    EXPECT_NE(out.find("advice for GPU Tesla T4 (compute capability 7.5) with 16 GB: "),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("note: advice for a Tesla T4 (compute capability 7.5, 16 GB); the run "
                       "itself was on the CPU"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("of weights in the Tesla T4's 16 GB"), std::string::npos) << out;
    EXPECT_NE(out.find("on the Tesla T4 bf16 runs, slow (no bf16 tensor cores"), std::string::npos)
        << out;
    EXPECT_EQ(out.find("bf16 runs natively on this CPU"), std::string::npos) << out;
    // The report states the target, with its memory, in the HTML and the JSON.
    const std::string html = readFileCliTarget(path("t4.html"));
    EXPECT_NE(html.find("Target device:</b> GPU Tesla T4 (compute capability 7.5) with 16 GB"),
              std::string::npos);
    const auto j = nlohmann::json::parse(readFileCliTarget(path("t4.json")));
    const auto& d = j["advice"]["device"];
    EXPECT_EQ(d["name"], "Tesla T4");
    EXPECT_EQ(d["compute_capability"], "7.5");
    EXPECT_EQ(d["memory_gb"], 16.0);
    EXPECT_EQ(d["target"], true);
    EXPECT_EQ(j["advice"]["fixes"][0]["fits"], true);
    // Re-rendered for another GPU by hand: the saved report now speaks for it.
    const std::string again =
        runCli("report " + path("t4.json") + " --target-cc 8.6 --target-memory 12 --out " +
                   path("again.html"),
               status);
    EXPECT_EQ(status, 0) << again;
    const auto k = nlohmann::json::parse(readFileCliTarget(path("again.json")));
    EXPECT_EQ(k["advice"]["device"]["compute_capability"], "8.6");
    EXPECT_EQ(k["advice"]["device"]["memory_gb"], 12.0);
}

TEST_F(CliTarget, AGpuByHandAndTheOldOptionName) {
    int status = -1;
    std::string out = generate("--target-cc 7.5 --target-memory 11", status);
    EXPECT_EQ(status, 1) << out;
    EXPECT_NE(out.find("advice for GPU (compute capability 7.5) with 11 GB: "), std::string::npos)
        << out;
    EXPECT_NE(out.find("advice for a GPU of compute capability 7.5 with 11 GB"), std::string::npos)
        << out;
    EXPECT_NE(out.find("of weights in the GPU's 11 GB"), std::string::npos) << out;
    // --advise-for is --target's alias; --target-memory sizes a named GPU.
    out = generate("--advise-for RTX3060", status);
    EXPECT_NE(out.find("advice for GPU GeForce RTX 3060 (compute capability 8.6) with 12 GB"),
              std::string::npos)
        << out;
    out = generate("--target v100 --target-memory 32", status);
    EXPECT_NE(out.find("advice for GPU Tesla V100 (compute capability 7.0) with 32 GB"),
              std::string::npos)
        << out;
}

TEST_F(CliTarget, BadTargetsExitTwoNamingTheAcceptedForms) {
    struct Bad {
        const char* options;
        const char* message;
    };
    for (const Bad& b : {
             Bad{"--target-cc 7.5 --target-memory abc",
                 "--target-memory: give the GPU's memory in GB, a number above 0 and at most "
                 "1024 (such as 16 or 11), got 'abc'"},
             Bad{"--target-cc 7.5 --target-memory 0", "got '0'"},
             Bad{"--target-cc 7.5 --target-memory --json", "got '--json'"},
             Bad{"--target-cc 7",
                 "--target-cc: compute capability '7': give MAJOR.MINOR from "
                 "3.0 up, such as 7.5 or 8.6"},
             Bad{"--target-cc abc", "--target-cc: compute capability 'abc'"},
             Bad{"--target t4 --target-cc 7.5", "give either --target t4 or --target-cc 7.5"},
             Bad{"--target-memory 16", "--target-memory sizes a target GPU"},
         }) {
        int status = -1;
        const std::string out = generate(b.options, status);
        EXPECT_EQ(status, 2) << b.options << "\n" << out;
        EXPECT_NE(out.find(b.message), std::string::npos) << b.options << "\n" << out;
        EXPECT_EQ(out.find("denoising"), std::string::npos) << "ran before refusing: " << out;
    }
}

// Every command that advises takes the options and says so.
TEST(CliTargetHelp, EveryAdvisingCommandListsTheTargetOptions) {
    for (const char* cmd : {"generate", "compare", "bisect", "report"}) {
        int status = -1;
        const std::string help = runCli(std::string(cmd) + " --help", status);
        EXPECT_NE(help.find("--target GPU"), std::string::npos) << cmd;
        EXPECT_NE(help.find("--target-memory GB"), std::string::npos) << cmd;
        for (const auto& g : hs::knownGpus())
            EXPECT_TRUE(help.find(" " + g.key + ",") != std::string::npos ||
                        help.find(" " + g.key + " ") != std::string::npos)
                << cmd << ": " << g.key;
    }
}
