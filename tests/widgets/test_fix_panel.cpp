// The "find minimal fix" panel: settings out, trials and the result in, Apply only with a plan.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSignalSpy>

#include "fix_panel.h"

namespace {

hs::BisectionTrial trial(int i, bool passed, std::vector<std::string> blocks) {
    hs::BisectionTrial t;
    t.iteration = i;
    t.phase = "from_start";
    t.safeBlocks = std::move(blocks);
    t.planText = "transformer=fp16";
    t.passed = passed;
    t.outcome.allFinite = passed;
    t.outcome.verdict = passed ? "ok" : "nan/inf";
    t.outcome.difference = passed ? 0.01 : 0.6;
    return t;
}

}  // namespace

TEST(FixPanel, EmitsItsSettings) {
    FixPanel p;
    QSignalSpy spy(&p, &FixPanel::findRequested);
    p.findButton()->click();
    ASSERT_EQ(spy.count(), 1);
    const auto s = spy.takeFirst().at(0).value<FixSettings>();
    EXPECT_EQ(s.safeFormat, hs::Format::BF16);
    EXPECT_EQ(s.trialSteps, 8);
    EXPECT_DOUBLE_EQ(s.tolerance, 0.05);
}

TEST(FixPanel, ShowsTrialsAndAppliesTheFoundPlan) {
    FixPanel p;
    p.setRunning(true);
    EXPECT_FALSE(p.findButton()->isEnabled());
    EXPECT_FALSE(p.applyButton()->isEnabled());
    p.addTrial(
        trial(1, true, {"transformer.transformer_blocks.0", "transformer.transformer_blocks.1"}));
    p.addTrial(trial(2, false, {}));
    EXPECT_EQ(p.trialCount(), 2);

    hs::BisectionResult r;
    r.status = hs::BisectionStatus::Fixed;
    r.found = true;
    r.planText = "transformer=fp16,transformer.transformer_blocks.1=bf16";
    r.message = "keep 1 block in bf16";
    p.setResult(r);
    EXPECT_TRUE(p.findButton()->isEnabled());
    ASSERT_TRUE(p.applyButton()->isEnabled());
    EXPECT_TRUE(p.resultText().contains("transformer_blocks.1=bf16"));
    QSignalSpy apply(&p, &FixPanel::applyRequested);
    p.applyButton()->click();
    ASSERT_EQ(apply.count(), 1);
    EXPECT_EQ(apply.takeFirst().at(0).toString(), QString::fromStdString(r.planText));

    // A new search clears the old result: Apply must not offer a stale plan.
    p.setRunning(true);
    EXPECT_EQ(p.trialCount(), 0);
    EXPECT_FALSE(p.applyButton()->isEnabled());
    EXPECT_TRUE(p.resultPlan().isEmpty());
}

TEST(FixPanel, NoPlanWhenNothingPassed) {
    FixPanel p;
    hs::BisectionResult r;
    r.status = hs::BisectionStatus::CannotFix;
    r.message = "every block in bf16 still fails";
    p.setResult(r);
    EXPECT_FALSE(p.applyButton()->isEnabled());
    EXPECT_TRUE(p.resultText().contains("still fails"));
}
