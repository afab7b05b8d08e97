// Cancellation within one block: a flag set while the text encoder, a denoising step, the VAE
// decode, a load or a precision-search trial runs stops it at its next probe point or weight
// tensor (base/cancel.h), not at the end of the stage.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "diagnosis/bisection.h"
#include "base/cancel.h"
#include "pipeline/pipeline.h"
#include "pipeline/precision_search.h"
#include "runtime/demo_location.h"
#include "sd_fixture.h"
#include "test_util.h"

using namespace hs;

namespace {

using ClockCancellation = std::chrono::steady_clock;

double secondsBetween(ClockCancellation::time_point a, ClockCancellation::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

std::string demoDirCancellation() {
    const std::string d = findDemoModel();
    EXPECT_FALSE(d.empty()) << "resources/demo-model is missing";
    return d;
}

RunConfig demoConfigCancellation(int steps) {
    RunConfig cfg;
    cfg.prompt = "a large red circle in the centre, blue background";
    cfg.seed = 5;
    cfg.steps = steps;
    cfg.probeLevel = ProbeLevel::Layer;
    return cfg;
}

// Sets the flag when the run enters `stage`.
struct CancelAtStage : RunObserver {
    CancelAtStage(std::string s, std::atomic<bool>& f) : stage(std::move(s)), flag(f) {}
    void onStage(const std::string& s) override {
        if (s == stage) flag = true;
    }
    std::string stage;
    std::atomic<bool>& flag;
};

size_t recordsOf(const RunRecord& r, const std::string& prefix) {
    size_t n = 0;
    for (const auto& p : r.probes) n += p.name.rfind(prefix, 0) == 0;
    return n;
}

}  // namespace

TEST(Cancellation, ProbePointThrowsOnlyInsideAScopeWhoseFlagIsSet) {
    ProbeContext probes(PrecisionPlan(), torch::Device(torch::kCPU), ProbeLevel::Module);
    const ProbePoint block("transformer.transformer_blocks.0", ProbeLevel::Module);
    const auto x = torch::ones({2, 3});
    std::atomic<bool> outer{false}, inner{false};
    {
        CancelScope a(&outer);
        EXPECT_NO_THROW(probes.point(block, x));
        {
            CancelScope b(&inner);
            outer = true;  // an outer scope's flag stops the inner work too
            EXPECT_THROW(probes.point(block, x), Cancelled);
            EXPECT_THROW(probes.pointAs(block, Format::FP16, x), Cancelled);
        }
        outer = false;
        inner = true;  // the inner scope is gone: its flag no longer counts
        EXPECT_NO_THROW(probes.point(block, x));
    }
    outer = true;
    EXPECT_NO_THROW(probes.point(block, x));  // no scope on this thread
    // Another thread's scope does not reach this one.
    std::atomic<bool> set{true};
    std::thread other([&] {
        CancelScope s(&set);
        EXPECT_TRUE(cancelRequested());
    });
    other.join();
    EXPECT_FALSE(cancelRequested());
}

TEST(Cancellation, DemoRunStopsInsideTheTextEncoderAndInsideTheVaeDecode) {
    auto p = Pipeline::load(demoDirCancellation(), PrecisionPlan(), torch::Device(torch::kCPU));
    {
        std::atomic<bool> flag{false};
        CancelAtStage obs("text encoder", flag);
        const RunRecord r = p->run(demoConfigCancellation(2), &obs, &flag);
        EXPECT_TRUE(r.cancelled);
        EXPECT_TRUE(r.steps.empty());
        // Stopped at the encoder's first point, not after its last layer.
        EXPECT_EQ(recordsOf(r, "text_encoder."), 0u);
    }
    {
        std::atomic<bool> flag{false};
        CancelAtStage obs("vae decode", flag);
        const RunRecord r = p->run(demoConfigCancellation(2), &obs, &flag);
        EXPECT_TRUE(r.cancelled);
        EXPECT_EQ(r.steps.size(), 2u);
        EXPECT_FALSE(r.finalImage.has_value());
        EXPECT_EQ(recordsOf(r, "vae."), 0u);
    }
    // The pipeline runs on after a cancelled run.
    std::atomic<bool> flag{false};
    const RunRecord r = p->run(demoConfigCancellation(1), nullptr, &flag);
    EXPECT_FALSE(r.cancelled);
    EXPECT_TRUE(r.finalImage.has_value());
}

namespace {

// Runs `cfg` once in full to time a step and count its blocks (Module-level points), then again
// with the flag set from another thread half way into the second step. Expects the run to stop
// inside that step (no step finishes after the flag) within a few blocks.
void expectStopInsideTheSecondStep(Pipeline& p, RunConfig cfg, const char* what) {
    cfg.steps = 3;
    cfg.probeLevel = ProbeLevel::Module;
    const RunRecord full = p.run(cfg);
    ASSERT_EQ(full.steps.size(), 3u);
    size_t blocksPerStep = 0;
    for (const auto& r : full.probes) blocksPerStep += r.step == 1;
    ASSERT_GT(blocksPerStep, 4u);
    const double stepSeconds = full.steps[1].seconds;
    const double blockSeconds = stepSeconds / double(blocksPerStep);

    struct HalfWay : RunObserver {
        std::atomic<bool>* flag;
        double delay;
        std::thread setter;
        std::atomic<int64_t> setAtNs{0};
        std::vector<ClockCancellation::time_point> stepEnds;
        void onStep(const StepRecord& s, const std::vector<ProbeRecord>&) override {
            stepEnds.push_back(ClockCancellation::now());
            if (s.step != 0) return;
            setter = std::thread([this] {
                std::this_thread::sleep_for(std::chrono::duration<double>(delay));
                setAtNs = ClockCancellation::now().time_since_epoch().count();
                *flag = true;
            });
        }
    };
    std::atomic<bool> flag{false};
    HalfWay obs;
    obs.flag = &flag;
    obs.delay = stepSeconds / 2;
    const RunRecord r = p.run(cfg, &obs, &flag);
    const auto returned = ClockCancellation::now();
    obs.setter.join();
    const ClockCancellation::time_point setAt{ClockCancellation::duration(obs.setAtNs.load())};
    EXPECT_TRUE(r.cancelled);
    const double latency = secondsBetween(setAt, returned);
    std::printf("%s %dx%d: step %.4f s, %zu blocks (%.5f s each); cancel to return %.5f s\n", what,
                cfg.width, cfg.height, stepSeconds, blocksPerStep, blockSeconds, latency);
    // No step finished after the flag was set: the step it fell into stopped inside.
    for (const auto& t : obs.stepEnds) EXPECT_LT(t, setAt);
    // Within a few blocks (generous for a shared CPU), far less than a step.
    EXPECT_LT(latency, std::max(4 * blockSeconds, stepSeconds / 4) + 0.02);
}

}  // namespace

TEST(Cancellation, DemoStepStopsWithinAFewBlocksOfTheFlag) {
    auto p = Pipeline::load(demoDirCancellation(), PrecisionPlan(), torch::Device(torch::kCPU));
    expectStopInsideTheSecondStep(*p, demoConfigCancellation(3), "demo (FLUX.1 transformer)");
}

TEST(Cancellation, TinySdUnetStepStopsWithinAFewBlocksOfTheFlag) {
    const std::string root = test::tempDir("cancel_sd");
    const auto f = test::writeTinySd(root, false, test::sdEulerConfig());
    auto p = Pipeline::load(f.folder, PrecisionPlan(), torch::Device(torch::kCPU));
    RunConfig cfg = demoConfigCancellation(3);
    cfg.width = cfg.height = 64;
    expectStopInsideTheSecondStep(*p, cfg, "tiny SD 1.x (UNet)");
    p.reset();
    std::filesystem::remove_all(root);
}

TEST(Cancellation, LoadStopsAtTheNextTensor) {
    std::atomic<bool> flag{true};
    CancelScope scope(&flag);
    const auto t0 = ClockCancellation::now();
    EXPECT_THROW(Pipeline::load(demoDirCancellation(), PrecisionPlan(), torch::Device(torch::kCPU)),
                 Cancelled);
    EXPECT_LT(secondsBetween(t0, ClockCancellation::now()), 1.0);
    flag = false;
    EXPECT_NO_THROW(
        Pipeline::load(demoDirCancellation(), PrecisionPlan(), torch::Device(torch::kCPU)));
}

TEST(Cancellation, BisectionStopsWhenATrialIsCancelledAndRecordsNoOutcomeForIt) {
    const PrecisionPlan failing = PrecisionPlan::parse("transformer=fp16");
    const std::vector<std::string> blocks{"transformer.a", "transformer.b", "transformer.c",
                                          "transformer.d"};
    int calls = 0;
    auto trial = [&](const PrecisionPlan&) {
        if (++calls == 2) throw Cancelled();  // the cancel flag stopped this trial's run
        TrialOutcome o;
        o.allFinite = true;
        o.verdict = "ok";
        return o;
    };
    const BisectionResult r = bisectPrecision(failing, blocks, trial);
    EXPECT_EQ(r.status, BisectionStatus::Cancelled);
    ASSERT_EQ(r.trials.size(), 1u);  // the cut-short trial is not an outcome
    EXPECT_TRUE(r.found);            // the verify trial passed: its set is kept
    EXPECT_EQ(calls, 2);
}

TEST(Cancellation, PrecisionSearchStopsInsideTheReferenceRun) {
    RunConfig cfg = demoConfigCancellation(2);
    cfg.modelDir = demoDirCancellation();
    cfg.plan = PrecisionPlan::parse("transformer=fp16");
    std::atomic<bool> flag{false};
    PrecisionSearchOptions o;
    o.trialSteps = 2;
    o.cancel = &flag;
    o.onStage = [&](const std::string& s) {
        if (s == "reference run") flag = true;
    };
    int trials = 0;
    o.onTrial = [&](const BisectionTrial&) { ++trials; };
    const PrecisionSearch s = searchPrecision(cfg, o);
    EXPECT_TRUE(s.planFails);
    EXPECT_EQ(s.result.status, BisectionStatus::Cancelled);
    EXPECT_FALSE(s.referenceRun.finalImage.has_value());  // stopped, not run to the end
    EXPECT_EQ(trials, 0);
}
