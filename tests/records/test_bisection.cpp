#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>

#include "diagnosis/bisection.h"

using namespace hs;

namespace {

std::vector<std::string> sixBlocks() {
    return {"transformer.transformer_blocks.0",        "transformer.transformer_blocks.1",
            "transformer.transformer_blocks.2",        "transformer.single_transformer_blocks.0",
            "transformer.single_transformer_blocks.1", "transformer.single_transformer_blocks.2"};
}

std::vector<std::string> numbered(int n) {
    std::vector<std::string> v;
    for (int i = 0; i < n; ++i) v.push_back("transformer.transformer_blocks." + std::to_string(i));
    return v;
}

// A synthetic run: passes when `needed` says the plan keeps enough blocks in bf16. Reads the
// plan the way the engine does (resolve per path), so a glob that caught extra blocks would
// change the outcome.
struct Synthetic {
    std::vector<std::string> blocks;
    std::function<bool(const std::set<int>&)> needed;
    double perFp16Block = 0.001;  // image difference each fp16 block adds
    int calls = 0;
    std::vector<std::string> plans;
    TrialOutcome operator()(const PrecisionPlan& p) {
        ++calls;
        plans.push_back(p.toString());
        std::set<int> safe;
        for (size_t i = 0; i < blocks.size(); ++i)
            if (p.resolve(blocks[i] + ".ff", Format::FP32) == Format::BF16) safe.insert(int(i));
        TrialOutcome o;
        o.seconds = 1.5;
        if (needed(safe)) {
            o.allFinite = true;
            o.verdict = "ok";
            o.difference = perFp16Block * double(blocks.size() - safe.size());
        } else {
            o.nonFinite = 4096;
            o.verdict = "nan/inf";
        }
        return o;
    }
};

const PrecisionPlan kFailing = PrecisionPlan::parse("text_encoder=fp32,transformer=fp16,vae=fp32");

}  // namespace

TEST(Bisection, NeedsBlocksTwoAndThree) {
    Synthetic s{sixBlocks(), [](const std::set<int>& k) { return k.count(2) && k.count(3); }};
    std::vector<BisectionTrial> seen;
    BisectionOptions o;
    o.onTrial = [&](const BisectionTrial& t) { seen.push_back(t); };
    const auto r = bisectPrecision(kFailing, s.blocks, std::ref(s), o);
    EXPECT_EQ(r.status, BisectionStatus::Fixed);
    EXPECT_TRUE(r.found);
    const std::vector<std::string> kept = {"transformer.transformer_blocks.2",
                                           "transformer.single_transformer_blocks.0"};
    EXPECT_EQ(r.keptBlocks, kept);
    EXPECT_EQ(r.planText,
              "text_encoder=fp32,transformer=fp16,vae=fp32,transformer.transformer_blocks.2=bf16,"
              "transformer.single_transformer_blocks.0=bf16");
    // verify 1 + prefix 2 ({0,1,2} fails, {0..3} passes) + suffix 2 + shrink 4 = 9 trials.
    ASSERT_EQ(r.trials.size(), 9u);
    EXPECT_EQ(s.calls, 9);
    EXPECT_EQ(seen.size(), 9u);
    EXPECT_EQ(r.trials[0].phase, "verify");
    EXPECT_EQ(r.trials[0].safeBlocks.size(), 6u);
    EXPECT_TRUE(r.trials[0].passed);
    EXPECT_EQ(r.trials[1].phase, "from_start");
    EXPECT_EQ(r.trials[1].safeBlocks.size(), 3u);
    EXPECT_FALSE(r.trials[1].passed);
    EXPECT_NE(r.trials[1].why.find("4096 non-finite"), std::string::npos);
    EXPECT_EQ(r.trials[3].phase, "from_end");
    EXPECT_EQ(r.trials.back().phase, "shrink");
    for (size_t i = 0; i < r.trials.size(); ++i) {
        EXPECT_EQ(r.trials[i].iteration, int(i) + 1);
        EXPECT_EQ(r.trials[i].planText, s.plans[i]);
    }
    EXPECT_NE(r.message.find("2 of 6 blocks in bf16"), std::string::npos);
    // The resulting plan really passes.
    EXPECT_TRUE(trialPasses(s(r.plan), o.tolerance));
}

TEST(Bisection, AnyLateBlockIsEnoughAndTheSuffixWins) {
    Synthetic s{sixBlocks(), [](const std::set<int>& k) {
                    for (int i : k)
                        if (i >= 4) return true;
                    return false;
                }};
    const auto r = bisectPrecision(kFailing, s.blocks, std::ref(s));
    EXPECT_EQ(r.status, BisectionStatus::Fixed);
    ASSERT_EQ(r.keptBlocks.size(), 1u);
    EXPECT_EQ(r.keptBlocks[0], "transformer.single_transformer_blocks.2");
    // verify 1 + prefix 3 (3 fail, 4 fail, 5 pass) + suffix 2 (3 pass, 1 pass); no shrink
    // trial: dropping the last block would be the failing plan.
    EXPECT_EQ(r.trials.size(), 6u);
}

TEST(Bisection, NeverUsesAGlobThatCatchesOtherBlocks) {
    // 20 blocks, block 1 needed: a "blocks.1*" rule would also make 10-19 safe.
    const auto blocks = numbered(20);
    Synthetic s{blocks, [](const std::set<int>& k) { return k.count(1) > 0; }};
    const auto r = bisectPrecision(kFailing, blocks, std::ref(s));
    ASSERT_EQ(r.keptBlocks, std::vector<std::string>{"transformer.transformer_blocks.1"});
    EXPECT_EQ(r.plan.resolve("transformer.transformer_blocks.1.attn"), Format::BF16);
    EXPECT_EQ(r.plan.resolve("transformer.transformer_blocks.10.attn"), Format::FP16);
    EXPECT_EQ(r.plan.resolve("transformer.transformer_blocks.19"), Format::FP16);
    EXPECT_EQ(r.planText.find('*'), std::string::npos);
    // A binary search, not a linear one: verify + <= 2 * ceil(log2 20) + shrink.
    EXPECT_LE(r.trials.size(), 1u + 5u + 5u + 2u);
}

TEST(Bisection, NonContiguousSetIsShrunk) {
    const auto blocks = numbered(8);
    Synthetic s{blocks, [](const std::set<int>& k) { return k.count(1) && k.count(6); }};
    const auto r = bisectPrecision(kFailing, blocks, std::ref(s));
    EXPECT_EQ(r.status, BisectionStatus::Fixed);
    EXPECT_EQ(r.keptBlocks, (std::vector<std::string>{"transformer.transformer_blocks.1",
                                                      "transformer.transformer_blocks.6"}));
}

TEST(Bisection, CannotFixWhenAllSafeStillFails) {
    Synthetic s{sixBlocks(), [](const std::set<int>&) { return false; }};
    const auto r = bisectPrecision(kFailing, s.blocks, std::ref(s));
    EXPECT_EQ(r.status, BisectionStatus::CannotFix);
    EXPECT_FALSE(r.found);
    EXPECT_EQ(r.trials.size(), 1u);
    EXPECT_TRUE(r.keptBlocks.empty());
    EXPECT_EQ(r.planText, kFailing.toString());
    EXPECT_NE(r.message.find("outside these blocks"), std::string::npos);
}

TEST(Bisection, ToleranceOnTheImageDifference) {
    // Every plan is finite, but the image differs by 0.01 per fp16 block; tolerance 0.025
    // allows at most 2 blocks in fp16.
    Synthetic s{sixBlocks(), [](const std::set<int>&) { return true; }};
    s.perFp16Block = 0.01;
    BisectionOptions o;
    o.tolerance = 0.025;
    const auto r = bisectPrecision(kFailing, s.blocks, std::ref(s), o);
    EXPECT_EQ(r.status, BisectionStatus::Fixed);
    EXPECT_EQ(r.keptBlocks.size(), 4u);
    bool sawDifferenceFailure = false;
    for (const auto& t : r.trials)
        if (!t.passed && t.why.find("above the tolerance") != std::string::npos)
            sawDifferenceFailure = true;
    EXPECT_TRUE(sawDifferenceFailure);
}

TEST(Bisection, BlackImageDoesNotPass) {
    TrialOutcome o;
    o.allFinite = true;
    o.verdict = "black";
    std::string why;
    EXPECT_FALSE(trialPasses(o, 0.05, &why));
    EXPECT_NE(why.find("black"), std::string::npos);
    o.verdict = "ok";
    EXPECT_TRUE(trialPasses(o, 0.05, &why));  // no reference: difference NaN is not compared
    o.difference = 0.06;
    EXPECT_FALSE(trialPasses(o, 0.05));
}

TEST(Bisection, IterationLimitKeepsTheBestPassingSet) {
    Synthetic s{sixBlocks(), [](const std::set<int>& k) { return k.count(2) && k.count(3); }};
    BisectionOptions o;
    o.maxIterations = 3;  // verify + 2 prefix trials
    const auto r = bisectPrecision(kFailing, s.blocks, std::ref(s), o);
    EXPECT_EQ(r.status, BisectionStatus::IterationLimit);
    EXPECT_TRUE(r.hitIterationLimit());
    EXPECT_EQ(r.trials.size(), 3u);
    EXPECT_EQ(s.calls, 3);
    EXPECT_TRUE(r.found);
    EXPECT_EQ(r.keptBlocks.size(), 4u);  // the prefix {0..3}, which passed
    EXPECT_TRUE(trialPasses(s(r.plan), o.tolerance));
    EXPECT_NE(r.message.find("may not be minimal"), std::string::npos);
}

TEST(Bisection, ExactBudgetFinishesAsFixed) {
    Synthetic s{sixBlocks(), [](const std::set<int>& k) { return k.count(2) && k.count(3); }};
    BisectionOptions o;
    o.maxIterations = 9;
    EXPECT_EQ(bisectPrecision(kFailing, s.blocks, std::ref(s), o).status, BisectionStatus::Fixed);
}

TEST(Bisection, CancelStopsBeforeTheNextTrial) {
    std::atomic<bool> cancel{false};
    Synthetic s{sixBlocks(), [](const std::set<int>& k) { return k.count(2) && k.count(3); }};
    BisectionOptions o;
    o.cancel = &cancel;
    o.onTrial = [&](const BisectionTrial& t) {
        if (t.iteration == 4) cancel = true;
    };
    const auto r = bisectPrecision(kFailing, s.blocks, std::ref(s), o);
    EXPECT_EQ(r.status, BisectionStatus::Cancelled);
    EXPECT_TRUE(r.cancelled());
    EXPECT_EQ(s.calls, 4);
    EXPECT_EQ(r.trials.size(), 4u);
    EXPECT_TRUE(r.found);
    EXPECT_EQ(r.keptBlocks.size(), 4u);

    cancel = true;  // cancelled before the first trial: nothing found, failing plan returned
    Synthetic s2{sixBlocks(), [](const std::set<int>&) { return true; }};
    const auto r2 = bisectPrecision(kFailing, s2.blocks, std::ref(s2), o);
    EXPECT_EQ(r2.status, BisectionStatus::Cancelled);
    EXPECT_EQ(s2.calls, 0);
    EXPECT_FALSE(r2.found);
    EXPECT_EQ(r2.planText, kFailing.toString());
}

TEST(Bisection, ThrowingTrialCountsAsAFailure) {
    int calls = 0;
    auto trial = [&](const PrecisionPlan& p) -> TrialOutcome {
        ++calls;
        if (calls == 2) throw std::runtime_error("out of memory");
        TrialOutcome o;
        o.allFinite = true;
        o.verdict = "ok";
        return o;
    };
    const auto r = bisectPrecision(kFailing, sixBlocks(), trial);
    ASSERT_GE(r.trials.size(), 2u);
    EXPECT_FALSE(r.trials[1].passed);
    EXPECT_EQ(r.trials[1].outcome.error, "out of memory");
    EXPECT_NE(r.trials[1].why.find("did not run: out of memory"), std::string::npos);
    EXPECT_EQ(r.status, BisectionStatus::Fixed);
}

TEST(Bisection, NoCandidates) {
    int calls = 0;
    auto trial = [&](const PrecisionPlan&) {
        ++calls;
        return TrialOutcome{};
    };
    const auto r = bisectPrecision(kFailing, {}, trial);
    EXPECT_EQ(r.status, BisectionStatus::NoCandidates);
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(bisectionStatusName(r.status), "no_candidates");
}

TEST(Bisection, SafeFormatFp32AndPlanHelper) {
    const PrecisionPlan p = planWithSafeBlocks(kFailing, {"vae.decoder.up_blocks.1"}, Format::FP32);
    EXPECT_EQ(p.toString(),
              "text_encoder=fp32,transformer=fp16,vae=fp32,vae.decoder.up_blocks.1=fp32");
    Synthetic s{sixBlocks(), [](const std::set<int>& k) { return k.count(0) > 0; }};
    s.blocks = sixBlocks();
    BisectionOptions o;
    o.safeFormat = Format::FP32;
    int fp32Rules = 0;
    auto trial = [&](const PrecisionPlan& plan) {
        for (const auto& rule : plan.rules())
            if (rule.pattern.find("blocks") != std::string::npos && rule.format == Format::FP32)
                ++fp32Rules;
        TrialOutcome t;
        t.allFinite = plan.resolve("transformer.transformer_blocks.0.ff") == Format::FP32;
        t.nonFinite = t.allFinite ? 0 : 1;
        return t;
    };
    const auto r = bisectPrecision(kFailing, sixBlocks(), trial, o);
    EXPECT_EQ(r.keptBlocks, std::vector<std::string>{"transformer.transformer_blocks.0"});
    EXPECT_GT(fp32Rules, 0);
    EXPECT_EQ(r.safeFormat, Format::FP32);
}
