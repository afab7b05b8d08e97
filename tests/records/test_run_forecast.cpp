// A run's forecast before it starts, from a finished run of the same model, plan and device.
#include <gtest/gtest.h>

#include "records/run_forecast.h"

using namespace hs;

namespace {

// A finished 64x64 run of 4 steps: the first step slow (kernels built), the others 0.5 s, and
// 1 s besides (text encoding and the final decode).
RunRecord measuredRun() {
    RunRecord r;
    r.config.modelDir = "/models/demo";
    r.config.steps = 4;
    r.config.guidance = 4.0;
    r.config.width = r.config.height = 64;
    r.config.plan = PrecisionPlan::parse("transformer=fp16");
    for (int i = 0; i < 4; ++i) {
        StepRecord s;
        s.step = i;
        s.seconds = i == 0 ? 2.0 : 0.5;
        r.steps.push_back(s);
    }
    r.seconds = 2.0 + 3 * 0.5 + 1.0;
    r.estimate = RunEstimate{5.0, 3e8, 2e8, 1e8};
    return r;
}

}  // namespace

TEST(RunForecast, ScalesTheMedianStepByTheStepsAndEverythingByThePixels) {
    const RunRecord m = measuredRun();
    RunConfig next = m.config;
    next.steps = 10;
    auto f = forecastRun(m, next);
    ASSERT_TRUE(f.has_value());
    EXPECT_DOUBLE_EQ(f->seconds, 10 * 0.5 + 1.0);  // the slow first step is not the typical one
    EXPECT_DOUBLE_EQ(f->bytes, 3e8);
    EXPECT_FALSE(f->weightsOnly);

    next.width = next.height = 128;  // four times the pixels
    f = forecastRun(m, next);
    ASSERT_TRUE(f.has_value());
    EXPECT_DOUBLE_EQ(f->seconds, 4 * (10 * 0.5 + 1.0));
    EXPECT_DOUBLE_EQ(f->bytes, 2e8 + 4 * 1e8);  // weights stay, activations grow

    next.decodeEvery = 5;  // two preview decodes and the final one: three times the fixed part
    f = forecastRun(m, next);
    EXPECT_DOUBLE_EQ(f->seconds, 4 * (10 * 0.5 + 3 * 1.0));
}

TEST(RunForecast, OnlyFromAFinishedRunOfTheSameModelPlanDeviceAndGuidanceMode) {
    const RunRecord m = measuredRun();
    RunConfig next = m.config;
    next.prompt = "another prompt";
    next.seed = 99;
    next.guidance = 7.5;  // still on
    EXPECT_TRUE(forecastRun(m, next).has_value());

    auto refused = [&](auto change) {
        RunRecord r = m;
        RunConfig c = next;
        change(r, c);
        return !forecastRun(r, c).has_value();
    };
    EXPECT_TRUE(refused([](RunRecord&, RunConfig& c) { c.modelDir = "/models/other"; }));
    EXPECT_TRUE(refused([](RunRecord&, RunConfig& c) { c.modelFiles.vae = "/models/ae.sft"; }));
    EXPECT_TRUE(refused([](RunRecord&, RunConfig& c) { c.plan = PrecisionPlan(); }));
    EXPECT_TRUE(refused([](RunRecord&, RunConfig& c) { c.device = "cuda:0"; }));
    EXPECT_TRUE(refused([](RunRecord&, RunConfig& c) { c.guidance = 1.0; }));  // one pass a step
    EXPECT_TRUE(refused([](RunRecord& r, RunConfig&) { r.cancelled = true; }));
    EXPECT_TRUE(refused([](RunRecord& r, RunConfig&) { r.error = "out of memory"; }));
    EXPECT_TRUE(refused([](RunRecord& r, RunConfig&) { r.steps.clear(); }));
}

TEST(RunForecast, MemoryIsWeightsOnlyOrUnknownAsTheMeasuredRunKnewIt) {
    RunRecord m = measuredRun();
    m.steps.resize(1);  // one step: its time is the step time
    m.seconds = 3.0;
    m.estimate = RunEstimate{3.0, 2e8, 2e8, -1};  // a GPU: activations unknown
    RunConfig next = m.config;
    next.steps = 3;
    auto f = forecastRun(m, next);
    ASSERT_TRUE(f.has_value());
    EXPECT_DOUBLE_EQ(f->seconds, 3 * 2.0 + 1.0);
    EXPECT_DOUBLE_EQ(f->bytes, 2e8);
    EXPECT_TRUE(f->weightsOnly);

    m.estimate.reset();  // a run that made no estimate: time only
    f = forecastRun(m, next);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->bytes, -1);
}
