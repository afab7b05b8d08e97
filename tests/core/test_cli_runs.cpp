// halfscope-cli generate / compare / bisect / report on the shipped demo model: exit codes that
// scripts can test, --json on stdout, and reports that re-render from their JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace fs = std::filesystem;
using hs::test::runCli;

namespace {

class CliRuns : public ::testing::Test {
protected:
    void SetUp() override { m_dir = hs::test::tempDir("cli-runs"); }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string path(const std::string& name) const { return m_dir + "/" + name; }
    std::string m_dir;
};

const char* kPrompt = "--prompt 'a large red circle in the centre, blue background' --seed 5";

}  // namespace

TEST_F(CliRuns, GenerateExitsZeroForACleanPictureAndOneForNaN) {
    int status = -1;
    std::string out =
        runCli(std::string("generate ") + kPrompt + " --steps 6 --out " + path("ok.png"), status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_TRUE(fs::exists(path("ok.png")));
    out = runCli(std::string("generate ") + kPrompt +
                     " --steps 6 --plan transformer=fp16 --json --out " + path("nan.png") +
                     " --report " + path("nan.html"),
                 status, /*stdoutOnly=*/true);
    EXPECT_EQ(status, 1) << out;
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["verdict"], "nan/inf");
    EXPECT_NE(j["first_failure_summary"].get<std::string>().find("transformer"), std::string::npos);
    for (const char* f : {"nan.html", "nan.json", "nan-steps.csv", "nan-layers.csv"})
        EXPECT_TRUE(fs::exists(path(f))) << f;
    std::ifstream html(path("nan.html"));
    const std::string text((std::istreambuf_iterator<char>(html)), {});
    EXPECT_NE(text.find("a large red circle in the centre"), std::string::npos);
    EXPECT_EQ(text.find("src=\"http"), std::string::npos);  // self-contained
}

TEST_F(CliRuns, CompareReportsBothRunsAndTheirDivergence) {
    int status = -1;
    const std::string out =
        runCli(std::string("compare ") + kPrompt +
                   " --steps 5 --plan transformer=bf16 --plan transformer=fp16 --json --report " +
                   path("cmp.html"),
               status, true);
    EXPECT_EQ(status, 1) << out;  // the fp16 run fails
    const auto j = nlohmann::json::parse(out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["verdict"], "ok");
    EXPECT_NE(j[1]["verdict"], "ok");
    EXPECT_EQ(j[1]["latent_divergence_to_first"].size(), 5u);
    EXPECT_TRUE(fs::exists(path("cmp.json")));

    // Re-rendered from the saved JSON alone.
    runCli("report " + path("cmp.json") + " --out " + path("again.html"), status);
    EXPECT_EQ(status, 0);
    EXPECT_GT(fs::file_size(path("again.html")), 10000u);
}

TEST_F(CliRuns, BisectPrintsAPlanThatWorks) {
    int status = -1;
    const std::string out =
        runCli(std::string("bisect ") + kPrompt + " --plan transformer=fp16 --trial-steps 3 --json",
               status, true);
    ASSERT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);
    ASSERT_TRUE(j.contains("plan"));
    const std::string plan = j["plan"].get<std::string>();
    EXPECT_EQ(plan.rfind("transformer=fp16,", 0), 0u) << plan;
    runCli(std::string("generate ") + kPrompt + " --steps 3 --plan '" + plan + "' --out " +
               path("fixed.png"),
           status);
    EXPECT_EQ(status, 0);
}

TEST_F(CliRuns, BadInputExitsTwoWithAMessage) {
    int status = -1;
    std::string out =
        runCli("generate --out " + path("x.png") + " --plan transformer=fp17", status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("fp17"), std::string::npos) << out;
    out = runCli("compare --plan transformer=fp16", status);
    EXPECT_EQ(status, 2);
    out = runCli("generate --out " + path("x.png") + " --model /nonexistent", status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("/nonexistent"), std::string::npos) << out;
    std::ofstream(path("bad.json")) << R"({"schema": "something else"})";
    out = runCli("report " + path("bad.json"), status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("schema"), std::string::npos) << out;
}
