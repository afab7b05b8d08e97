// The run estimate's time (pipeline/run_estimate.h) leaves out the first step, whose time holds
// the run's warm-up (a GPU's context, kernel loading and autotuning; oneDNN's kernel builds on
// the CPU): measured step times in, the estimate's arithmetic out.
#include <gtest/gtest.h>

#include <vector>

#include "base/work_progress.h"
#include "pipeline/run_estimate.h"

namespace hs {
namespace {

TEST(RunEstimateSteps, TheStepTimeLeavesOutTheFirstStepFromTwoStepsOn) {
    EXPECT_DOUBLE_EQ(steadyStepSeconds({}), 0.0);
    EXPECT_DOUBLE_EQ(steadyStepSeconds({4.0}), 4.0);  // a one-step run: all there is
    EXPECT_DOUBLE_EQ(steadyStepSeconds({9.0, 1.0}), 1.0);
    EXPECT_DOUBLE_EQ(steadyStepSeconds({9.0, 1.0, 1.4}), 1.2);
}

TEST(RunEstimateSteps, AFirstCallsWarmUpIsNotMultipliedByTheStepsToCome) {
    // 20 steps; step 1 took 6 s (5 s of it warm-up), step 2 1 s; 9 s had passed by then
    // (text encoder, both steps); one decode of 0.5 s to come.
    const double seconds = estimateRunSeconds(9.0, {6.0, 1.0}, 20, 0.5, 1);
    EXPECT_DOUBLE_EQ(seconds, 9.0 + 18 * 1.0 + 0.5);
    // Timed from the first step alone the warm-up would count 19 times: 9 + 18 * 6 + 0.5.
    EXPECT_LT(seconds, 9.0 + 18 * 6.0 + 0.5);
    // A one-step run is estimated from its step; a run at its end has no steps left.
    EXPECT_DOUBLE_EQ(estimateRunSeconds(3.0, {2.0}, 1, 0.5, 1), 3.5);
    EXPECT_DOUBLE_EQ(estimateRunSeconds(3.0, {2.0, 1.0}, 2, -1, 1), 3.0);  // no decode estimate
}

TEST(RunEstimateSteps, TheEstimateFollowsTheSecondStepAndCountsTheDecodesStillToCome) {
    EXPECT_EQ(estimateStepIndex(1), 0);
    EXPECT_EQ(estimateStepIndex(2), 1);
    EXPECT_EQ(estimateStepIndex(30), 1);
    EXPECT_EQ(decodesAfterStep(20, 0, 2), 1);       // the final decode only
    EXPECT_EQ(decodesAfterStep(20, 1, 2), 1 + 18);  // a preview after each step still to come
    EXPECT_EQ(decodesAfterStep(20, 1, 1), 1 + 19);
    EXPECT_EQ(decodesAfterStep(20, 5, 2), 1 + 4);  // after steps 5, 10, 15, 20
    EXPECT_EQ(decodesAfterStep(20, 2, 2), 1 + 9);  // step 2's own preview is done
    EXPECT_EQ(decodesAfterStep(1, 1, 1), 1);
}

TEST(RunEstimateSteps, TheEstimatorReportsTheSteadyStepsEstimate) {
    std::vector<WorkProgress> seen;
    const WorkProgressScope scope([&](const WorkProgress& p) { seen.push_back(p); }, 0.0);
    RunEstimator estimator;
    ASSERT_TRUE(estimator.active());
    estimator.beforeFirstStep();
    estimator.stepTimed(30.0);  // a first call 30x a step: a GPU's context and autotuning
    estimator.stepTimed(1.0);
    estimator.estimate(12, 0.0, 1, 1000, true);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].kind, WorkKind::Estimate);
    // What has passed here (well under a second) plus 10 steps of 1 s, not 10 of 30 s.
    EXPECT_GE(seen[0].estimateSeconds, 10.0);
    EXPECT_LT(seen[0].estimateSeconds, 15.0);
    ASSERT_TRUE(estimator.made().has_value());
    EXPECT_DOUBLE_EQ(estimator.made()->seconds, seen[0].estimateSeconds);
}

}  // namespace
}  // namespace hs
