// The progress of a run's long parts (base/work_progress.h): text encoding and VAE decoding
// report their start and end, a streamed run which block is resident, a precision search its
// trial i of n; each stops through the run's cancel flag; the run's estimate after its second
// step (pipeline/run_estimate.h) lies within a factor of 3 of the time the run took, on the demo
// model and the tiny FLUX.1 fixture; the CLI prints all of it on stderr, and nothing with --quiet.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "../records/run_config_of.h"
#include "base/work_progress.h"
#include "flux1_fixture.h"
#include "pipeline/pipeline.h"
#include "pipeline/precision_search.h"
#include "pipeline/run_estimate.h"
#include "runtime/demo_location.h"
#include "test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// The factor within which the estimate must lie of the measured time, either way.
constexpr double kEstimateFactor = 3.0;

std::vector<WorkProgress> collectWhile(const std::function<void()>& work,
                                       const std::function<void(const WorkProgress&)>& also = {}) {
    std::vector<WorkProgress> seen;
    const WorkProgressScope scope(
        [&](const WorkProgress& p) {
            seen.push_back(p);
            if (also) also(p);
        },
        0.0);
    work();
    return seen;
}

const WorkProgress* find(const std::vector<WorkProgress>& seen, WorkKind kind, bool done) {
    for (const auto& p : seen)
        if (p.kind == kind && p.done == done) return &p;
    return nullptr;
}

RunConfig demoConfigWorkProgress(int steps) {
    RunConfig c;
    c.modelDir = findDemoModel();
    c.prompt = "a large red circle in the centre, blue background";
    c.seed = 3;
    c.steps = steps;
    return c;
}

TEST(WorkProgress, AStageReportsItsStartAndEndButNoEndWhenLeftByAnException) {
    auto seen = collectWhile([] { const WorkStage s(WorkKind::VaeDecoding, "vae decode"); });
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_FALSE(seen[0].done);
    EXPECT_TRUE(seen[1].done);
    EXPECT_GE(seen[1].elapsedSeconds, 0.0);
    EXPECT_EQ(workProgressText(seen[0]), "vae decode");
    EXPECT_EQ(workProgressText(seen[1]).rfind("vae decode: done in ", 0), 0u);
    seen = collectWhile([] {
        try {
            const WorkStage s(WorkKind::TextEncoding, "text encoder");
            throw std::runtime_error("stopped");
        } catch (const std::runtime_error&) {
        }
    });
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_FALSE(seen[0].done);
    // Without a scope nothing is reported and nothing breaks.
    EXPECT_FALSE(workProgressWanted());
    const WorkStage unseen(WorkKind::TextEncoding, "text encoder");
}

TEST(WorkProgress, BlocksAreThrottledAndQuietRunsKeepOnlyBlocksAndTrials) {
    std::vector<WorkProgress> seen;
    {
        const WorkProgressScope scope([&](const WorkProgress& p) { seen.push_back(p); }, 60.0);
        for (int i = 1; i <= 5; ++i)
            noteBlockResident("transformer", "transformer_blocks." + std::to_string(i - 1) + ".", i,
                              5);
        const QuietRuns quiet;
        EXPECT_FALSE(runEstimatesWanted());
        const WorkStage hidden(WorkKind::TextEncoding, "text encoder");
        const WorkStage trial(WorkKind::Trial, "bisection", 1, 32);
    }
    // One block in a minute, the trial's start and end; the text encoder's neither.
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(workProgressText(seen[0]), "transformer: block 1/5 resident (transformer_blocks.0.)");
    EXPECT_EQ(workProgressText(seen[1]), "trial 1 of at most 32 (bisection)");
    EXPECT_EQ(seen[2].kind, WorkKind::Trial);
    EXPECT_TRUE(seen[2].done);
}

TEST(WorkProgress, ADemoRunReportsItsStagesAndAnEstimateNearItsTime) {
    ASSERT_FALSE(findDemoModel().empty());
    auto pipeline = Pipeline::load(findDemoModel(), PrecisionPlan(), torch::Device(torch::kCPU));
    RunRecord rec;
    const auto seen = collectWhile([&] { rec = pipeline->run(demoConfigWorkProgress(12)); });
    ASSERT_FALSE(rec.cancelled);
    ASSERT_NE(find(seen, WorkKind::TextEncoding, false), nullptr);
    ASSERT_NE(find(seen, WorkKind::TextEncoding, true), nullptr);
    ASSERT_NE(find(seen, WorkKind::VaeDecoding, false), nullptr);
    ASSERT_NE(find(seen, WorkKind::VaeDecoding, true), nullptr);
    EXPECT_EQ(find(seen, WorkKind::Block, false), nullptr);  // loaded whole: nothing streams
    const WorkProgress* est = find(seen, WorkKind::Estimate, false);
    const WorkProgress* end = find(seen, WorkKind::Finished, false);
    ASSERT_NE(est, nullptr);
    ASSERT_NE(end, nullptr);
    EXPECT_DOUBLE_EQ(end->actualSeconds, rec.seconds);
    EXPECT_DOUBLE_EQ(end->estimateSeconds, est->estimateSeconds);
    // The demo's weights (34 MB in fp32 emulating bf16) and some activations.
    EXPECT_GT(est->weightBytes, 20e6);
    EXPECT_LT(est->weightBytes, 60e6);
    EXPECT_GE(est->activationBytes, 0.0);
    EXPECT_DOUBLE_EQ(est->estimateBytes, est->weightBytes + est->activationBytes);
    const double ratio = est->estimateSeconds / rec.seconds;
    std::cerr << "demo: estimated " << est->estimateSeconds << " s, took " << rec.seconds << " s ("
              << ratio << "x); " << workProgressText(*est) << "\n";
    EXPECT_GT(ratio, 1 / kEstimateFactor);
    EXPECT_LT(ratio, kEstimateFactor);
    // Stages come in run order: encoding, estimate (after step 2), decoding, the end.
    EXPECT_LT(find(seen, WorkKind::TextEncoding, true), est);
    EXPECT_LT(est, find(seen, WorkKind::VaeDecoding, false));
    EXPECT_LT(find(seen, WorkKind::VaeDecoding, true), end);
}

TEST(WorkProgress, ATinyFluxRunsEstimateIsNearItsTime) {
    const std::string root = test::tempDir("work-progress-flux");
    const test::Flux1Files f = test::writeTinyFlux1(root, true);
    auto pipeline = Pipeline::load(f.folder, PrecisionPlan(), torch::Device(torch::kCPU));
    const RunConfig c = test::runConfigOf("a red fox in the snow, photograph", 7, 3.5, 64, 64, 8);
    pipeline->run(c);  // warm: the first run in a process builds kernels and reads tokenizers
    RunRecord rec;
    const auto seen = collectWhile([&] { rec = pipeline->run(c); });
    fs::remove_all(root);
    ASSERT_FALSE(rec.cancelled);
    const WorkProgress* est = find(seen, WorkKind::Estimate, false);
    ASSERT_NE(est, nullptr);
    const double ratio = est->estimateSeconds / rec.seconds;
    std::cerr << "flux: estimated " << est->estimateSeconds << " s, took " << rec.seconds << " s ("
              << ratio << "x); " << workProgressText(*est) << "\n";
    EXPECT_GT(ratio, 1 / kEstimateFactor);
    EXPECT_LT(ratio, kEstimateFactor);
    EXPECT_GT(est->weightBytes, 0.0);
}

// Stop at a stage's start: the run returns cancelled, with the steps done before it.
TEST(WorkProgress, EachStageStopsThroughTheRunsCancelFlag) {
    auto pipeline = Pipeline::load(findDemoModel(), PrecisionPlan(), torch::Device(torch::kCPU));
    for (const WorkKind at : {WorkKind::TextEncoding, WorkKind::VaeDecoding}) {
        std::atomic<bool> cancel{false};
        RunRecord rec;
        const auto seen =
            collectWhile([&] { rec = pipeline->run(demoConfigWorkProgress(3), nullptr, &cancel); },
                         [&](const WorkProgress& p) {
                             if (p.kind == at && !p.done) cancel = true;
                         });
        EXPECT_TRUE(rec.cancelled);
        EXPECT_EQ(rec.steps.size(), at == WorkKind::TextEncoding ? 0u : 3u);
        EXPECT_EQ(find(seen, at, true), nullptr);  // the stage never ended
        EXPECT_EQ(find(seen, WorkKind::Finished, false), nullptr);
    }
}

TEST(WorkProgress, AStreamedRunReportsTheResidentBlockAndStopsThere) {
    ::setenv("HALFSCOPE_MEMORY_LIMIT_MB", "30", 1);  // the demo's 34 MB do not fit whole
    std::unique_ptr<Pipeline> pipeline;
    try {
        pipeline = Pipeline::load(findDemoModel(), PrecisionPlan(), torch::Device(torch::kCPU));
    } catch (...) {
        ::unsetenv("HALFSCOPE_MEMORY_LIMIT_MB");
        throw;
    }
    ::unsetenv("HALFSCOPE_MEMORY_LIMIT_MB");
    ASSERT_NE(pipeline->memoryPlan().find("streamed"), std::string::npos) << pipeline->memoryPlan();
    RunRecord rec = pipeline->run(demoConfigWorkProgress(2));
    std::vector<WorkProgress> blocks;
    const auto seen = collectWhile([&] { rec = pipeline->run(demoConfigWorkProgress(2)); },
                                   [&](const WorkProgress& p) {
                                       if (p.kind == WorkKind::Block) blocks.push_back(p);
                                   });
    ASSERT_FALSE(rec.cancelled);
    ASSERT_FALSE(blocks.empty());
    for (const auto& b : blocks) {
        EXPECT_EQ(b.component, "transformer");
        EXPECT_GE(b.index, 1);
        EXPECT_LE(b.index, b.count);
        EXPECT_EQ(b.count, 6);  // 3 double + 3 single blocks
    }
    // Stop when the third block becomes resident: the run ends there, cancelled.
    std::atomic<bool> cancel{false};
    int resident = 0;
    collectWhile([&] { rec = pipeline->run(demoConfigWorkProgress(2), nullptr, &cancel); },
                 [&](const WorkProgress& p) {
                     if (p.kind == WorkKind::Block && ++resident == 3) cancel = true;
                 });
    EXPECT_TRUE(rec.cancelled);
    EXPECT_EQ(resident, 3);
    EXPECT_TRUE(rec.steps.empty());
}

TEST(WorkProgress, ASearchReportsTrialIOfNAndStopsAtATrial) {
    RunConfig c = demoConfigWorkProgress(3);
    c.plan = PrecisionPlan::parse("transformer=fp16");
    PrecisionSearchOptions o;
    o.maxIterations = 10;
    std::atomic<bool> cancel{false};
    o.cancel = &cancel;
    std::vector<WorkProgress> trials;
    const auto seen = collectWhile([&] { searchPrecision(c, o); },
                                   [&](const WorkProgress& p) {
                                       if (p.kind != WorkKind::Trial || p.done) return;
                                       trials.push_back(p);
                                       if (p.index == 3) cancel = true;
                                   });
    ASSERT_EQ(trials.size(), 3u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(trials[size_t(i)].index, i + 1);
        EXPECT_EQ(trials[size_t(i)].count, 10);
        EXPECT_EQ(trials[size_t(i)].what, "bisection");
    }
    // The trials' own runs report no stages or estimates of their own.
    EXPECT_EQ(find(seen, WorkKind::Estimate, false), nullptr);
    EXPECT_EQ(find(seen, WorkKind::TextEncoding, false), nullptr);
}

class CliWorkProgress : public hs::test::TempDirTest {};

TEST_F(CliWorkProgress, GeneratePrintsStagesAndTheEstimateAndQuietLeavesThemOut) {
    int status = -1;
    std::string out = test::runCli("generate --steps 4 --out " + m_dir + "/a.png", status);
    ASSERT_EQ(status, 0) << out;
    for (const char* line : {"text encoder: done in ", "vae decode: done in ", "estimate: about ",
                             " (weights ", "took ", "; estimated about "})
        EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
    // The estimate comes after the second step (the first holds the warm-up) and before the
    // decode. Step lines count from 0: "step 1 (2/4 done)" is the second.
    ASSERT_NE(out.find("step 1 (2/4 done)"), std::string::npos) << out;
    EXPECT_LT(out.find("step 1 (2/4 done)"), out.find("estimate: about "));
    EXPECT_GT(out.find("step 2 (3/4 done)"), out.find("estimate: about "));
    EXPECT_LT(out.find("estimate: about "), out.find("vae decode: done"));

    out = test::runCli("generate --quiet --steps 4 --out " + m_dir + "/b.png", status);
    ASSERT_EQ(status, 0) << out;
    for (const char* line : {"done in ", "estimate: ", "took "})
        EXPECT_EQ(out.find(line), std::string::npos) << line << "\n" << out;
}

TEST_F(CliWorkProgress, BisectPrintsEachTrialIOfN) {
    int status = -1;
    const std::string out =
        test::runCli("bisect --plan transformer=fp16 --steps 3 --max-iterations 2", status);
    EXPECT_NE(out.find("trial 1 of at most 2 (bisection)"), std::string::npos) << out;
    EXPECT_NE(out.find("trial 2 of at most 2 (bisection)"), std::string::npos) << out;
    EXPECT_EQ(out.find("estimate: "), std::string::npos) << out;
}

}  // namespace
}  // namespace hs
