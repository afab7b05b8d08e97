// halfscope-cli generate / compare / bisect / report on the shipped demo model: exit codes that
// scripts can test, --json on stdout, and reports that re-render from their JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "records/precision_plan.h"
#include "runtime/demo_location.h"
#include "test_util.h"

namespace fs = std::filesystem;
using hs::test::runCli;

namespace {

class CliRuns : public hs::test::TempDirTest {};

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

TEST_F(CliRuns, GenerateNamesWordsTheDemoModelDoesNotKnowAndDrawsAtItsSize) {
    int status = -1;
    const std::string out = runCli(
        "generate --prompt 'A teal hexagon, on a blue background!' "
        "--steps 2 --json --out " +
            path("teal.png"),
        status, /*stdoutOnly=*/true);
    EXPECT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);
    std::string notes;
    for (const auto& n : j["notes"]) notes += n.get<std::string>() + "\n";
    EXPECT_NE(notes.find("words not understood by the demo model: \"teal\", \"hexagon\""),
              std::string::npos)
        << out;
    // The size the model was trained at, its VAE's sample_size.
    std::ifstream vae(hs::findDemoModel() + "/vae/config.json");
    EXPECT_EQ(j["config"]["width"], nlohmann::json::parse(vae)["sample_size"]);
    // Words it knows, in any case and punctuation: no note.
    const std::string clean = runCli(
        "generate --prompt 'A LARGE red circle, blue background.' "
        "--steps 2 --out " +
            path("red.png"),
        status);
    EXPECT_EQ(status, 0) << clean;
    EXPECT_EQ(clean.find("not understood"), std::string::npos) << clean;
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

TEST_F(CliRuns, CompareTextPrintsOneLinePerRunWithItsDifference) {
    // Through a pipe, as a script reads it: each run's verdict line ends with its difference to
    // the first run, and the next run starts a line of its own.
    int status = -1;
    const std::string out = runCli(std::string("compare --quiet ") + kPrompt +
                                       " --steps 3 --plan transformer=bf16 --plan transformer=fp16",
                                   status, true);
    EXPECT_EQ(status, 1) << out;
    const size_t second = out.find("transformer=fp16: ");
    ASSERT_NE(second, std::string::npos) << out;
    ASSERT_GT(second, 0u);
    EXPECT_EQ(out[second - 1], '\n') << out;
    const size_t diff = out.find(", mean |difference| to the first ");
    ASSERT_NE(diff, std::string::npos) << out;
    EXPECT_GT(diff, second) << out;
    EXPECT_LT(diff, out.find('\n', second)) << out;
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

// --remedies: the fixes people use, tried and ranked; the table on stdout, in --json and in the
// report; a plan that only a remedy rule fixes runs clean from the command line.
TEST_F(CliRuns, BisectRanksTheRemediesAndTheBestOneRuns) {
    int status = -1;
    const std::string out = runCli(std::string("bisect ") + kPrompt +
                                       " --plan transformer=fp16 --trial-steps 3 --remedies "
                                       "clamp,scale,fp32-residual --target t4 --json --report " +
                                       path("fix.html"),
                                   status, true);
    ASSERT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);
    ASSERT_TRUE(j.contains("remedies")) << out;
    const auto& rows = j["remedies"]["rows"];
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(j["trials"].size(), 0u);  // no format: no bisection
    EXPECT_NE(j["remedies"]["target"].get<std::string>().find("T4"), std::string::npos);
    EXPECT_EQ(rows[0]["rank"], 1);
    ASSERT_TRUE(rows[0]["passed"].get<bool>()) << rows[0].dump();
    EXPECT_TRUE(rows[0]["psnr_db"].is_number());
    const std::string plan = rows[0]["plan"].get<std::string>();
    EXPECT_EQ(plan.rfind("transformer=fp16,", 0), 0u) << plan;
    const std::string remedy = rows[0]["remedy"].get<std::string>();
    EXPECT_NE(plan.find("=" + (remedy == "scale" ? std::string("scale:") : remedy)),
              std::string::npos)
        << plan;
    runCli(std::string("generate ") + kPrompt + " --steps 3 --plan '" + plan + "' --out " +
               path("fixed.png"),
           status);
    EXPECT_EQ(status, 0);
    std::ifstream html(path("fix.html"));
    const std::string text((std::istreambuf_iterator<char>(html)), {});
    EXPECT_NE(text.find("Remedies, ranked"), std::string::npos);
    // The table reads back from the report's JSON.
    runCli("report " + path("fix.json") + " --out " + path("again.html"), status);
    EXPECT_EQ(status, 0);
    std::ifstream again(path("again.html"));
    EXPECT_NE(std::string((std::istreambuf_iterator<char>(again)), {}).find("Remedies, ranked"),
              std::string::npos);
    // A bad remedy name is a usage error naming the accepted ones.
    const std::string bad = runCli("bisect --plan transformer=fp16 --remedies clip", status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(bad.find("fp32-residual"), std::string::npos) << bad;
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

// How bf16 runs on this CPU is visible and chosen from the command line (or the environment),
// and a bad choice is a usage error.
TEST_F(CliRuns, InfoSaysHowBf16RunsAndTheModeCanBeChosen) {
    int status = -1;
    auto j = nlohmann::json::parse(runCli("info --json", status, true));
    EXPECT_EQ(status, 0);
    EXPECT_EQ(j["cpu"]["bf16_mode"], "emulated");
    EXPECT_EQ(j["cpu"]["execution"]["bf16"], "emulated");
    j = nlohmann::json::parse(runCli("info --json --cpu-bf16 native", status, true));
    EXPECT_EQ(j["cpu"]["execution"]["bf16"], "native");
    j = nlohmann::json::parse(runCli("info --json --cpu-bf16=auto", status, true));
    EXPECT_EQ(j["cpu"]["bf16_mode"], "auto");
    EXPECT_EQ(j["cpu"]["execution"]["bf16"],
              j["cpu"]["bf16_instructions"].get<bool>() ? "native" : "emulated");
    std::string out = runCli("info --cpu-bf16 fast", status);
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("--cpu-bf16 must be emulated, native or auto"), std::string::npos) << out;
    out = runCli("generate --steps 1 --cpu-bf16 native --json --out " + path("n.png") +
                     " --prompt 'a red circle'",
                 status, true);
    EXPECT_EQ(status, 0) << out;
    EXPECT_EQ(nlohmann::json::parse(out)["components"][1]["execution"], "native");
    out = runCli("info", status);
    EXPECT_NE(out.find("bf16 emulated (fp32 compute"), std::string::npos) << out;
    setenv("HALFSCOPE_CPU_BF16", "sometimes", 1);
    out = runCli("info", status);
    unsetenv("HALFSCOPE_CPU_BF16");
    EXPECT_EQ(status, 2);
    EXPECT_NE(out.find("HALFSCOPE_CPU_BF16 must be emulated, native or auto"), std::string::npos)
        << out;
}

// halfscope-cli starts through its launcher, which hands the program passive OpenMP waits unless
// the user chose a policy.
TEST_F(CliRuns, TheLauncherSetsPassiveWaitsUnlessAPolicyIsSet) {
    const std::string saved = std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "";
    int status = -1;
    unsetenv("OMP_WAIT_POLICY");
    auto j = nlohmann::json::parse(runCli("info --json", status, true));
    EXPECT_EQ(j["omp_wait_policy"], "PASSIVE");
    setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
    j = nlohmann::json::parse(runCli("info --json", status, true));
    EXPECT_EQ(j["omp_wait_policy"], "ACTIVE");
    if (saved.empty())
        unsetenv("OMP_WAIT_POLICY");
    else
        setenv("OMP_WAIT_POLICY", saved.c_str(), 1);
}

// One exit status story: a plan whose image is fine but inside which a NaN/Inf appeared and was
// contained exits 3, says so ("contained: ..."), and --json carries the same status; a plan with
// no NaN/Inf anywhere exits 0; the verdict is "ok" for both.
TEST_F(CliRuns, ClampAndScalePlansAgreeInVerdictJsonAndExitStatus) {
    struct Case {
        const char* plan;
        int status;
    };
    // On this prompt and seed an Inf shows inside transformer_blocks.0.ff_context at step 1 and
    // the clamp clips it before the stream; scale:4 keeps every value finite.
    for (const Case c : {Case{"transformer=fp16,transformer=clamp", 3},
                         Case{"transformer=fp16,transformer=scale:4", 0}}) {
        int status = -1;
        const std::string out = runCli(std::string("generate ") + kPrompt + " --plan " + c.plan +
                                           " --json --out " + path("c.png"),
                                       status, /*stdoutOnly=*/true);
        EXPECT_EQ(status, c.status) << c.plan << "\n" << out;
        const auto j = nlohmann::json::parse(out);
        EXPECT_EQ(j["verdict"], "ok") << c.plan;
        EXPECT_EQ(j["exit_status"], c.status) << c.plan;
        EXPECT_EQ(j.contains("contained"), c.status == 3) << c.plan;
        EXPECT_EQ(j["first_non_finite"].is_null(), c.status == 0) << c.plan;
        const std::string text = runCli(
            std::string("generate ") + kPrompt + " --plan " + c.plan + " --out " + path("c.png"),
            status, /*stdoutOnly=*/true);
        EXPECT_EQ(status, c.status) << text;
        EXPECT_NE(text.find("image: ok"), std::string::npos) << text;
        EXPECT_EQ(text.find("contained: the image is fine") != std::string::npos, c.status == 3)
            << text;
        if (c.status == 3) {
            EXPECT_NE(j["contained"].get<std::string>().find("the plan's transformer=clamp"),
                      std::string::npos)
                << j["contained"];
            EXPECT_NE(text.find("; exit status 3"), std::string::npos) << text;
        }
    }
    // compare: every image fine, one run contained: 3, and each run's status in --json.
    int status = -1;
    const std::string out = runCli(std::string("compare ") + kPrompt +
                                       " --plan transformer=fp16,transformer=scale:4"
                                       " --plan transformer=fp16,transformer=clamp --json",
                                   status, true);
    EXPECT_EQ(status, 3) << out;
    const auto j = nlohmann::json::parse(out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(j[0]["exit_status"], 0);
    EXPECT_EQ(j[1]["exit_status"], 3);
    EXPECT_EQ(j[1]["verdict"], "ok");
    // The help says what 3 means.
    for (const char* cmd : {"generate", "compare", "bisect"}) {
        const std::string help = runCli(std::string(cmd) + " --help", status);
        EXPECT_NE(help.find("exit_status"), std::string::npos) << cmd << "\n" << help;
    }
}

namespace {

// Every plan in a report's advice: each either says it was not tried or, when tried, runs clean
// (exit status 0) from the command line; none repeats a component with opposite settings.
void expectEveryFixWorksOrIsMarked(const std::string& reportJson, const std::string& png,
                                   bool checked) {
    std::ifstream in(reportJson);
    ASSERT_TRUE(in) << reportJson;
    const auto j = nlohmann::json::parse(in);
    const auto& fixes = j["advice"]["fixes"];
    ASSERT_FALSE(fixes.empty()) << j["advice"].dump(1);
    for (const auto& f : fixes) {
        const std::string plan = f["plan"].get<std::string>();
        if (plan.empty()) continue;
        // Normalised: each component pattern given once.
        for (const char* comp : {"text_encoder=", "transformer=", "vae="}) {
            const size_t at = plan.find(comp);
            if (at != std::string::npos)
                EXPECT_EQ(plan.find(std::string(",") + comp, at + 1), std::string::npos) << plan;
        }
        const bool tried = f["verified"].get<bool>() || !f["tried_verdict"].is_null();
        EXPECT_EQ(tried, checked) << f.dump(1);
        if (!tried) continue;  // marked "not tried": the report says so
        EXPECT_EQ(f["tried_verdict"], "ok") << f.dump(1);
        int status = -1;
        const std::string out = runCli(
            std::string("generate ") + kPrompt + " --steps 6 --plan '" + plan + "' --out " + png,
            status);
        EXPECT_EQ(status, 0) << plan << "\n" << out;
    }
}

}  // namespace

// Advice that was checked: for the demo model's fp16 failures (in the transformer, in the VAE,
// both), every plan generate --report and compare suggest fixes the run when --check-fixes tried
// it, and says "not tried" otherwise; a comparison's first fix covers both failing components.
TEST_F(CliRuns, EverySuggestedFixWorksOrIsMarkedNotTried) {
    int status = -1;
    for (const char* failing : {"transformer=fp16", "vae=fp16", "transformer=fp16,vae=fp16"}) {
        for (const bool check : {false, true}) {
            const std::string out =
                runCli(std::string("generate ") + kPrompt + " --steps 6 --plan " + failing +
                           (check ? " --check-fixes" : "") + " --report " + path("g.html") +
                           " --out " + path("g.png"),
                       status);
            EXPECT_EQ(status, 1) << failing << "\n" << out;
            expectEveryFixWorksOrIsMarked(path("g.json"), path("f.png"), check);
        }
    }
    const std::string out = runCli(std::string("compare ") + kPrompt +
                                       " --steps 6 --plan transformer=bf16,vae=bf16"
                                       " --plan transformer=fp16,vae=fp16 --check-fixes --report " +
                                       path("cmp.html") + " --target t4",
                                   status);
    EXPECT_EQ(status, 1) << out;
    expectEveryFixWorksOrIsMarked(path("cmp.json"), path("f.png"), true);
    std::ifstream in(path("cmp.json"));
    const auto j = nlohmann::json::parse(in);
    // The first fix covers both components that fail in fp16: neither failing point stays fp16.
    const std::string first = j["advice"]["fixes"][0]["plan"].get<std::string>();
    const auto plan = hs::PrecisionPlan::parse(first);
    EXPECT_NE(plan.resolve("transformer.transformer_blocks.1"), hs::Format::FP16) << first;
    EXPECT_NE(plan.resolve("vae.decoder.up_blocks.2"), hs::Format::FP16) << first;
    EXPECT_NE(out.find("(tried on the same prompt and seed: ok)"), std::string::npos) << out;
    EXPECT_EQ(out.find("run the VAE in"), std::string::npos) << out;  // shown to fail: not offered
}
