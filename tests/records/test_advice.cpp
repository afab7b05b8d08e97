#include <gtest/gtest.h>

#include "diagnosis/advice.h"
#include "record_fixtures.h"

using namespace hs;

namespace {

RunRecord failingTransformer() {
    test::FixtureOptions o;
    o.transformerFormat = Format::FP16;
    o.fp16Execution = Execution::Native;  // a GPU
    o.failAt = std::make_pair(std::string("transformer.transformer_blocks.2.ff"), 0);
    return test::makeRun(o);
}

BisectionResult fixedBisection() {
    BisectionResult b;
    b.status = BisectionStatus::Fixed;
    b.found = true;
    b.safeFormat = Format::BF16;
    b.candidates = {
        "transformer.transformer_blocks.0",        "transformer.transformer_blocks.1",
        "transformer.transformer_blocks.2",        "transformer.single_transformer_blocks.0",
        "transformer.single_transformer_blocks.1", "transformer.single_transformer_blocks.2"};
    b.keptBlocks = {"transformer.transformer_blocks.0", "transformer.transformer_blocks.1",
                    "transformer.transformer_blocks.2", "transformer.single_transformer_blocks.0"};
    b.plan =
        planWithSafeBlocks(PrecisionPlan::parse("transformer=fp16"), b.keptBlocks, Format::BF16);
    b.planText = b.plan.toString();
    return b;
}

const Fix* findKind(const Advice& a, const std::string& kind) {
    for (const auto& f : a.fixes)
        if (f.kind == kind) return &f;
    return nullptr;
}

}  // namespace

// --advise-for: the GPU a diagnosis made elsewhere is for, by name or compute capability.
TEST(DeviceInfo, TargetGpusByNameOrCapability) {
    const auto t4 = targetGpu("T4");
    EXPECT_EQ(t4.describe(), "GPU Tesla T4 (compute capability 7.5)");
    EXPECT_FALSE(t4.bf16Native());
    EXPECT_EQ(targetGpu("v100").major, 7);
    EXPECT_EQ(targetGpu("v100").minor, 0);
    EXPECT_TRUE(targetGpu("a100").bf16Native());
    const auto bare = targetGpu("7.5");
    EXPECT_TRUE(bare.isCuda());
    EXPECT_EQ(bare.capabilityText(), "7.5");
    const auto named = targetGpu("Quadro RTX 6000=7.5");
    EXPECT_EQ(named.name, "Quadro RTX 6000");
    EXPECT_FALSE(named.bf16Native());
    for (const char* bad : {"gtx1080", "75", "7.", "2.0", ""}) {
        try {
            targetGpu(bad);
            ADD_FAILURE() << bad << " was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("t4, "), std::string::npos) << e.what();
        }
    }
}

TEST(DeviceInfo, FormatRules) {
    const auto t4 = DeviceInfo::cuda("Tesla T4", 7, 5);
    EXPECT_FALSE(t4.bf16Native());
    EXPECT_TRUE(t4.fp16Fast());
    EXPECT_EQ(t4.executionOf(Format::BF16), Execution::Emulated);
    EXPECT_EQ(t4.executionOf(Format::FP16), Execution::Native);
    EXPECT_EQ(t4.describe(), "GPU Tesla T4 (compute capability 7.5)");
    const auto a100 = DeviceInfo::cuda("A100", 8, 0);
    EXPECT_TRUE(a100.bf16Native());
    const auto p100 = DeviceInfo::cuda("P100", 6, 0);
    EXPECT_FALSE(p100.fp16Fast());
    const auto cpu = DeviceInfo::cpu("Xeon");
    EXPECT_FALSE(cpu.bf16Native());  // emulated unless the CPU's bf16 mode says native
    EXPECT_TRUE(cpu.bf16Cheap());
    EXPECT_EQ(cpu.executionOf(Format::BF16), Execution::Emulated);
    EXPECT_TRUE(DeviceInfo::cpu("Xeon", Execution::Native).bf16Native());
    EXPECT_EQ(DeviceInfo::cpu("Xeon", Execution::Native).executionOf(Format::BF16),
              Execution::Native);
    EXPECT_FALSE(cpu.fp16Fast());
    EXPECT_EQ(cpu.executionOf(Format::FP16), Execution::Emulated);
    EXPECT_EQ(cpu.capabilityText(), "");
}

TEST(Advice, TuringWithBisectionRanksTheBlocksFirst) {
    const RunRecord run = failingTransformer();
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = run.components;
    in.failingPlan = PrecisionPlan::parse(run.effectivePlan);
    in.firstFailure = findFirstFailure(run);
    in.bisection = fixedBisection();
    const Advice a = adviseFixes(in);
    EXPECT_TRUE(a.fp16IsTheProblem);
    EXPECT_FALSE(a.predicted);
    EXPECT_NE(a.headline.find("transformer.transformer_blocks.2.ff"), std::string::npos);
    ASSERT_EQ(a.fixes.size(), 3u);
    EXPECT_EQ(a.fixes[0].kind, "blocks");
    EXPECT_EQ(a.fixes[0].rank, 1);
    EXPECT_EQ(a.fixes[0].action, "keep transformer blocks 0-2, single transformer block 0 in bf16");
    EXPECT_EQ(a.fixes[0].blocksKept, 4);
    EXPECT_EQ(a.fixes[0].blocksTotal, 6);
    EXPECT_NE(a.fixes[0].cost.find("4 of 6 blocks"), std::string::npos);
    EXPECT_NE(
        a.fixes[0].cost.find("on this GPU (compute capability 7.5) bf16 is emulated and slow"),
        std::string::npos);
    EXPECT_TRUE(a.fixes[0].verified);
    EXPECT_EQ(a.fixes[0].planText, in.bisection->planText);
    // fp32 for the whole transformer beats emulated bf16 for it on a T4.
    EXPECT_EQ(a.fixes[1].kind, "component_fp32");
    EXPECT_EQ(a.fixes[1].action, "run the transformer in fp32");
    EXPECT_DOUBLE_EQ(a.fixes[1].extraWeightMB, 24.0);  // 12e6 parameters x 2 bytes
    EXPECT_NE(a.fixes[1].cost.find("24 MB more than fp16"), std::string::npos);
    EXPECT_EQ(a.fixes[2].kind, "component_bf16");
    for (size_t i = 1; i < a.fixes.size(); ++i) EXPECT_LE(a.fixes[i - 1].score, a.fixes[i].score);
    // The plan of a component fix overrides every finer rule.
    const auto plan = PrecisionPlan::parse(a.fixes[1].planText);
    EXPECT_EQ(plan.resolve("transformer.transformer_blocks.4.ff"), Format::FP32);
    bool storedNote = false;
    for (const auto& n : a.notes)
        storedNote |= n.find("stored in bf16 and ran in fp16") != std::string::npos;
    EXPECT_TRUE(storedNote);
}

TEST(Advice, AmpereRunsTheTransformerInBf16) {
    const RunRecord run = failingTransformer();
    AdviceInput in;
    in.device = DeviceInfo::cuda("RTX 3090", 8, 6);
    in.components = run.components;
    in.failingPlan = PrecisionPlan::parse(run.effectivePlan);
    in.firstFailure = findFirstFailure(run);
    const Advice a = adviseFixes(in);
    ASSERT_FALSE(a.fixes.empty());
    EXPECT_EQ(a.fixes[0].action, "run the transformer in bf16");
    EXPECT_NE(a.fixes[0].cost.find("no extra weight memory"), std::string::npos);
    EXPECT_NE(a.fixes[0].cost.find("bf16 is native on this GPU (compute capability 8.6)"),
              std::string::npos);
    EXPECT_EQ(findKind(a, "blocks"), nullptr);  // no bisection given
    bool bisectNote = false;
    for (const auto& n : a.notes) bisectNote |= n.find("precision bisection") != std::string::npos;
    EXPECT_FALSE(bisectNote);  // no headroom table: the block count is unknown
}

TEST(Advice, VaeOverflowOnTuringPrefersFp32Vae) {
    test::FixtureOptions o;
    o.vaeFormat = Format::FP16;
    o.fp16Execution = Execution::Native;
    o.failAt = std::make_pair(std::string("vae.decoder.up_blocks.1.resnets.0"), -1);
    const RunRecord run = test::makeRun(o);
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = run.components;
    in.failingPlan = PrecisionPlan::parse(run.effectivePlan);
    in.firstFailure = findFirstFailure(run);
    const Advice a = adviseFixes(in);
    ASSERT_EQ(a.fixes.size(), 2u);
    EXPECT_EQ(a.fixes[0].action, "run the VAE in fp32");
    EXPECT_NE(a.fixes[0].cost.find("its weights: 6 MB more than fp16"), std::string::npos);
}

TEST(Advice, CpuSaysFp16BuysNothing) {
    const RunRecord run = failingTransformer();
    AdviceInput in;
    in.device = DeviceInfo::cpu("Xeon");
    in.components = run.components;
    in.failingPlan = PrecisionPlan::parse(run.effectivePlan);
    in.firstFailure = findFirstFailure(run);
    const Advice a = adviseFixes(in);
    EXPECT_EQ(a.fixes[0].action, "run the transformer in bf16");
    EXPECT_NE(a.fixes[0].cost.find("bf16 is emulated on this CPU at fp32's speed"),
              std::string::npos);
    in.device = DeviceInfo::cpu("Xeon", Execution::Native);
    EXPECT_NE(adviseFixes(in).fixes[0].cost.find("bf16 runs natively on this CPU"),
              std::string::npos);
    bool note = false;
    for (const auto& n : a.notes) note |= n.find("saves memory but no time") != std::string::npos;
    EXPECT_TRUE(note);
}

TEST(Advice, NaNInFp32IsNotAnFp16Problem) {
    test::FixtureOptions o;  // all fp32
    o.failWithNaNOnly = true;
    o.failAt = std::make_pair(std::string("transformer.transformer_blocks.1.attn"), 3);
    const RunRecord run = test::makeRun(o);
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = run.components;
    in.firstFailure = findFirstFailure(run);
    const Advice a = adviseFixes(in);
    EXPECT_FALSE(a.fp16IsTheProblem);
    EXPECT_NE(a.headline.find("fp16 is not the problem"), std::string::npos);
    EXPECT_NE(a.headline.find("fp32"), std::string::npos);
    ASSERT_EQ(a.fixes.size(), 1u);
    EXPECT_EQ(a.fixes[0].kind, "check_inputs");
    EXPECT_NE(a.fixes[0].action.find("transformer.transformer_blocks.1"), std::string::npos);
    ASSERT_FALSE(a.notes.empty());
    EXPECT_NE(a.notes[0].find("was finite"), std::string::npos);
}

TEST(Advice, PredictedFromHeadroomOfACleanRun) {
    test::FixtureOptions o;
    o.transformerFormat = Format::BF16;
    o.magnitude = [](const std::string& n, int step) {
        if (n == "transformer.single_transformer_blocks.1.proj_out" && step == 2) return 90000.0;
        return test::defaultMagnitude(n, step);
    };
    const RunRecord run = test::makeRun(o);
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = run.components;
    in.failingPlan = PrecisionPlan::parse("transformer=fp16");
    in.headroom = analyzeHeadroom(run);
    const Advice a = adviseFixes(in);
    EXPECT_TRUE(a.fp16IsTheProblem);
    EXPECT_TRUE(a.predicted);
    EXPECT_NE(a.headline.find("would overflow at step 2"), std::string::npos);
    const Fix* p = findKind(a, "predicted_blocks");
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->rank, 1);
    EXPECT_EQ(p->action, "keep single transformer block 1 in fp32");
    EXPECT_FALSE(p->verified);
    EXPECT_EQ(p->blocksKept, 1);
    EXPECT_EQ(p->blocksTotal, 11);  // every transformer block and module of the headroom table
    EXPECT_EQ(p->planText, "transformer=fp16,transformer.single_transformer_blocks.1=fp32");
    EXPECT_EQ(p->planText.find("*"), std::string::npos);
    bool bisectNote = false;
    for (const auto& n : a.notes)
        bisectNote |= n.find("bisection over the 11 transformer") != std::string::npos;
    EXPECT_TRUE(bisectNote);
}

TEST(Advice, CleanAndComfortable) {
    const RunRecord run = test::makeRun();
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = run.components;
    in.headroom = analyzeHeadroom(run);
    const Advice a = adviseFixes(in);
    EXPECT_FALSE(a.fp16IsTheProblem);
    EXPECT_TRUE(a.fixes.empty());
    EXPECT_NE(a.headline.find("bits of headroom"), std::string::npos);
}

TEST(Advice, CannotFixBisectionIsSaid) {
    const RunRecord run = failingTransformer();
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = run.components;
    in.firstFailure = findFirstFailure(run);
    BisectionResult b = fixedBisection();
    b.status = BisectionStatus::CannotFix;
    b.found = false;
    b.keptBlocks.clear();
    in.bisection = b;
    const Advice a = adviseFixes(in);
    EXPECT_EQ(findKind(a, "blocks"), nullptr);
    bool note = false;
    for (const auto& n : a.notes) note |= n.find("still failed") != std::string::npos;
    EXPECT_TRUE(note);
}
