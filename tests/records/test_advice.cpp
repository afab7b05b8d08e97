#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "diagnosis/advice.h"
#include "record_fixtures.h"
#include "report/html_report.h"
#include "report/report_bundle.h"
#include "report/report_json.h"
#include "report_fixtures.h"

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

bool hasNote(const Advice& a, const std::string& text) {
    for (const auto& n : a.notes)
        if (n.find(text) != std::string::npos) return true;
    return false;
}

// `run`'s components on `device`, nothing yet of how it failed.
AdviceInput componentsOn(const RunRecord& run, const DeviceInfo& device) {
    AdviceInput in;
    in.device = device;
    in.components = run.components;
    return in;
}

// Advice on `run`'s failure on `device`: its components, its plan and its first failure.
AdviceInput adviceOn(const RunRecord& run, const DeviceInfo& device) {
    AdviceInput in = componentsOn(run, device);
    in.failingPlan = PrecisionPlan::parse(run.effectivePlan);
    in.firstFailure = findFirstFailure(run);
    return in;
}

// The fixture's failing transformer (stored bf16, run in fp16) grown to `parameters`, with its
// 1.2 M-parameter text encoder (fp32 here) and 3 M-parameter VAE (fp32).
AdviceInput bigTransformer(int64_t parameters, const DeviceInfo& device) {
    const RunRecord run = failingTransformer();
    AdviceInput in = adviceOn(run, device);
    for (auto& c : in.components)
        if (c.name == "transformer") c.parameters = parameters;
    return in;
}

// Everything advice says (headline, notes, actions, costs) in one text.
std::string allAdviceText(const Advice& a) {
    std::string s = a.headline;
    for (const auto& n : a.notes) s += "\n" + n;
    for (const auto& f : a.fixes) s += "\n" + f.action + ": " + f.cost;
    return s;
}

}  // namespace

// --advise-for: the GPU a diagnosis made elsewhere is for, by name or compute capability.
TEST(DeviceInfo, TargetGpusByNameOrCapability) {
    const auto t4 = targetGpu("T4");
    EXPECT_EQ(t4.describe(), "GPU Tesla T4 (compute capability 7.5) with 16 GB");
    EXPECT_EQ(t4.shortName(), "the Tesla T4");
    EXPECT_TRUE(t4.target);
    EXPECT_DOUBLE_EQ(t4.memoryGB, 16);
    EXPECT_FALSE(t4.bf16Native());
    EXPECT_EQ(targetGpu("v100").major, 7);
    EXPECT_EQ(targetGpu("v100").minor, 0);
    EXPECT_TRUE(targetGpu("a100").bf16Native());
    const auto bare = targetGpu("7.5");
    EXPECT_TRUE(bare.isCuda());
    EXPECT_EQ(bare.capabilityText(), "7.5");
    EXPECT_EQ(bare.memoryGB, 0);  // unknown
    EXPECT_EQ(bare.describe(), "GPU (compute capability 7.5)");
    EXPECT_EQ(targetGpu("12.0").major, 12);  // two-digit majors (Blackwell)
    const auto named = targetGpu("Quadro RTX 6000=7.5");
    EXPECT_EQ(named.name, "Quadro RTX 6000");
    EXPECT_FALSE(named.bf16Native());
    for (const char* bad : {"gtx1080", "75", "7.", "2.0", "7.55", "", "t4=7"}) {
        try {
            targetGpu(bad);
            ADD_FAILURE() << bad << " was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("t4, "), std::string::npos) << e.what();
        }
    }
}

// The issue's list, with memory; a card that comes in two sizes: the plain name is the smaller.
TEST(DeviceInfo, TheIssuesGpusWithTheirMemory) {
    struct Want {
        const char* key;
        int major, minor;
        double gb;
    };
    for (const Want& w :
         {Want{"t4", 7, 5, 16}, Want{"v100", 7, 0, 16}, Want{"V100-32", 7, 0, 32},
          Want{"rtx2080ti", 7, 5, 11}, Want{"RTX3060", 8, 6, 12}, Want{"rtx4090", 8, 9, 24},
          Want{"a100", 8, 0, 40}, Want{"a100-80", 8, 0, 80}, Want{"h100", 9, 0, 80}}) {
        const DeviceInfo d = targetGpu(w.key);
        EXPECT_EQ(d.major, w.major) << w.key;
        EXPECT_EQ(d.minor, w.minor) << w.key;
        EXPECT_DOUBLE_EQ(d.memoryGB, w.gb) << w.key;
    }
    // Series differ in memory: none is claimed.
    EXPECT_EQ(targetGpu("rtx20").memoryGB, 0);
    EXPECT_EQ(targetGpu("rtx20").describe(), "GPU GeForce RTX 20 series (compute capability 7.5)");
    // The listing resolves back, each key once, with a label for a choice list.
    const auto list = knownGpus();
    std::set<std::string> keys;
    bool t4Label = false;
    for (const auto& g : list) {
        EXPECT_TRUE(keys.insert(g.key).second) << g.key;
        const DeviceInfo d = targetGpu(g.key);
        EXPECT_EQ(d.name, g.name);
        EXPECT_EQ(d.major * 10 + d.minor, g.major * 10 + g.minor) << g.key;
        EXPECT_DOUBLE_EQ(d.memoryGB, g.memoryGB) << g.key;
        t4Label |= g.key == "t4" && g.label == "Tesla T4 (7.5, 16 GB)";
    }
    EXPECT_TRUE(t4Label);
    for (const char* old :
         {"t4", "v100", "p100", "rtx20", "gtx16", "a100", "rtx30", "a10", "l4", "rtx40", "h100"})
        EXPECT_TRUE(keys.count(old)) << old;
}

// --target-cc 7.5 --target-memory 11: a GPU by hand.
TEST(DeviceInfo, TargetGpuByHand) {
    const DeviceInfo d = targetGpuByHand("7.5", 11);
    EXPECT_TRUE(d.isCuda());
    EXPECT_TRUE(d.target);
    EXPECT_EQ(d.capabilityText(), "7.5");
    EXPECT_EQ(d.describe(), "GPU (compute capability 7.5) with 11 GB");
    EXPECT_EQ(d.shortName(), "a compute capability 7.5 GPU");
    EXPECT_EQ(targetGpuByHand("8.6", 12.5, "RTX A2000").describe(),
              "GPU RTX A2000 (compute capability 8.6) with 12.5 GB");
    EXPECT_EQ(targetGpuByHand("8.0", 0).memoryGB, 0);  // memory unknown
    for (const char* bad : {"7", "abc", "7.", ".5", "2.0", "7.5.1"}) {
        try {
            targetGpuByHand(bad, 16);
            ADD_FAILURE() << bad << " was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("such as 7.5"), std::string::npos) << e.what();
        }
    }
    for (double bad : {-1.0, 1025.0, std::nan("")}) {
        try {
            targetGpuByHand("7.5", bad);
            ADD_FAILURE() << bad << " GB was taken";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("at most 1024"), std::string::npos) << e.what();
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
    AdviceInput in = adviceOn(run, DeviceInfo::cuda("Tesla T4", 7, 5));
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
    EXPECT_NE(a.fixes[0].cost.find("on this GPU (compute capability 7.5) bf16 runs, slow (no bf16 "
                                   "tensor cores: bf16 is emulated and slow"),
              std::string::npos)
        << a.fixes[0].cost;
    EXPECT_FALSE(a.fixes[0].fits.has_value());  // the device's memory is unknown
    EXPECT_EQ(a.fixes[0].cost.find("GB of weights"), std::string::npos);
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
    AdviceInput in = adviceOn(run, DeviceInfo::cuda("RTX 3090", 8, 6));
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
    AdviceInput in = adviceOn(run, DeviceInfo::cuda("Tesla T4", 7, 5));
    const Advice a = adviseFixes(in);
    ASSERT_EQ(a.fixes.size(), 2u);
    EXPECT_EQ(a.fixes[0].action, "run the VAE in fp32");
    EXPECT_NE(a.fixes[0].cost.find("its weights: 6 MB more than fp16"), std::string::npos);
}

TEST(Advice, CpuSaysFp16BuysNothing) {
    const RunRecord run = failingTransformer();
    AdviceInput in = adviceOn(run, DeviceInfo::cpu("Xeon"));
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

// The CPU note speaks of bf16 as it ran there: natively only on a CPU that runs it natively.
TEST(Advice, CpuNoteOnBf16FollowsHowItRuns) {
    AdviceInput in = adviceOn(failingTransformer(), DeviceInfo::cpu("Xeon", Execution::Emulated));
    const Advice emulated = adviseFixes(in);
    EXPECT_TRUE(hasNote(emulated, "bf16 is emulated too"));
    EXPECT_EQ(allAdviceText(emulated).find("natively"), std::string::npos)
        << allAdviceText(emulated);
    in.device = DeviceInfo::cpu("Xeon", Execution::Native);
    const Advice native = adviseFixes(in);
    EXPECT_TRUE(hasNote(native, "while bf16 runs natively with fp32's range"));
    EXPECT_FALSE(hasNote(native, "emulated too"));
}

// Two components moved together: one template names both, so a translation words the list.
TEST(Advice, ComponentListIsOneMessage) {
    test::FixtureOptions o;
    o.transformerFormat = Format::FP16;
    o.vaeFormat = Format::FP16;
    o.magnitude = [](const std::string& n, int step) {
        return n.rfind("vae.", 0) == 0 ? 70000.0 : test::defaultMagnitude(n, step);
    };
    o.failAt = std::make_pair(std::string("transformer.transformer_blocks.2.ff"), 0);
    const Advice a = adviseFixes(adviceOn(test::makeRun(o), DeviceInfo::cpu("Xeon")));
    const Fix* both = nullptr;
    for (const auto& f : a.fixes)
        if (f.kind == "component_bf16" && f.component == "transformer,vae") both = &f;
    ASSERT_NE(both, nullptr) << allAdviceText(a);
    EXPECT_EQ(both->action, "run the transformer and VAE in bf16");
    ASSERT_EQ(both->actionMessage.size(), 1u);
    EXPECT_EQ(both->actionMessage[0].id, "advice.action.components2");
}

TEST(Advice, NaNInFp32IsNotAnFp16Problem) {
    test::FixtureOptions o;  // all fp32
    o.failWithNaNOnly = true;
    o.failAt = std::make_pair(std::string("transformer.transformer_blocks.1.attn"), 3);
    const RunRecord run = test::makeRun(o);
    AdviceInput in = componentsOn(run, DeviceInfo::cuda("Tesla T4", 7, 5));
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
    AdviceInput in = componentsOn(run, DeviceInfo::cuda("Tesla T4", 7, 5));
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
    AdviceInput in = componentsOn(run, DeviceInfo::cuda("Tesla T4", 7, 5));
    in.headroom = analyzeHeadroom(run);
    const Advice a = adviseFixes(in);
    EXPECT_FALSE(a.fp16IsTheProblem);
    EXPECT_TRUE(a.fixes.empty());
    EXPECT_NE(a.headline.find("bits of headroom"), std::string::npos);
}

TEST(Advice, CannotFixBisectionIsSaid) {
    const RunRecord run = failingTransformer();
    AdviceInput in = componentsOn(run, DeviceInfo::cuda("Tesla T4", 7, 5));
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

// The issue's T4: a 6 B-parameter transformer. fp32 would rank first on a T4 (bf16 is slow
// there), but its 24 GB of weights do not fit 16 GB; bf16's 12 GB do, so bf16 comes first.
TEST(Advice, AFixThatDoesNotFitRanksBelowOneThatFits) {
    const AdviceInput unsized = bigTransformer(6000000000, DeviceInfo::cuda("Tesla T4", 7, 5));
    EXPECT_EQ(adviseFixes(unsized).fixes.at(0).kind, "component_fp32");  // memory unknown

    AdviceInput in = bigTransformer(6000000000, targetGpu("t4"));
    in.runDevice = "the CPU Xeon (fp16 emulated)";
    const Advice a = adviseFixes(in);
    ASSERT_EQ(a.fixes.size(), 2u);
    const Fix& bf16 = a.fixes[0];
    const Fix& fp32 = a.fixes[1];
    EXPECT_EQ(bf16.kind, "component_bf16");
    ASSERT_TRUE(bf16.fits.has_value());
    EXPECT_TRUE(*bf16.fits);
    // 6e9 x 2 bytes + (1.2e6 + 3e6) x 4 bytes
    EXPECT_NEAR(bf16.weightGB, 12.0168, 1e-9);
    EXPECT_NE(bf16.cost.find("fits: 12.0 GB of weights in the Tesla T4's 16 GB"), std::string::npos)
        << bf16.cost;
    EXPECT_NE(bf16.cost.find("on the Tesla T4 bf16 runs, slow (no bf16 tensor cores"),
              std::string::npos)
        << bf16.cost;
    EXPECT_EQ(fp32.kind, "component_fp32");
    ASSERT_TRUE(fp32.fits.has_value());
    EXPECT_FALSE(*fp32.fits);
    EXPECT_NE(fp32.cost.find("fp32 needs 24.0 GB of weights, more than the Tesla T4's 16 GB"),
              std::string::npos)
        << fp32.cost;
    EXPECT_GT(fp32.score, 100);
    EXPECT_EQ(fp32.rank, 2);
    // The target is named, and where the run was.
    ASSERT_FALSE(a.notes.empty());
    EXPECT_EQ(a.notes[0],
              "advice for a Tesla T4 (compute capability 7.5, 16 GB); the run itself was on the "
              "CPU Xeon (fp16 emulated): ranks, costs and weight totals speak for that GPU");
    ASSERT_TRUE(a.device.has_value());
    EXPECT_TRUE(a.device->target);
    EXPECT_FALSE(hasNote(a, "even the failing plan"));  // 12 GB in fp16 fit
}

// A 12 B-parameter transformer in fp32 (48 GB) fits neither a T4 nor, in fp16, its 16 GB; it
// fits an A100 80 GB.
TEST(Advice, TwelveBillionParametersInFp32FitAnA100With80GbNotAT4) {
    const Advice t4 = adviseFixes(bigTransformer(12000000000, targetGpu("t4")));
    const Fix* fp32 = findKind(t4, "component_fp32");
    ASSERT_NE(fp32, nullptr);
    ASSERT_TRUE(fp32->fits.has_value());
    EXPECT_FALSE(*fp32->fits);
    EXPECT_NE(fp32->cost.find("fp32 needs 48.0 GB of weights, more than the Tesla T4's 16 GB"),
              std::string::npos)
        << fp32->cost;
    EXPECT_TRUE(hasNote(t4,
                        "even the failing plan's weights, 24.0 GB, are more than the Tesla "
                        "T4's 16 GB"));
    EXPECT_EQ(t4.notes.at(0).rfind("advice for a Tesla T4 (compute capability 7.5, 16 GB)", 0), 0u);

    const Advice a100 = adviseFixes(bigTransformer(12000000000, targetGpu("a100-80")));
    fp32 = findKind(a100, "component_fp32");
    ASSERT_NE(fp32, nullptr);
    ASSERT_TRUE(fp32->fits.has_value());
    EXPECT_TRUE(*fp32->fits);
    EXPECT_NE(fp32->cost.find("fits: 48.0 GB of weights in the A100's 80 GB"), std::string::npos)
        << fp32->cost;
    EXPECT_EQ(a100.fixes.at(0).kind, "component_bf16");  // native on 8.0, and it fits
    EXPECT_NE(a100.fixes[0].cost.find("bf16 is native on the A100"), std::string::npos);
    // 40 GB A100: fp32's 48 GB do not fit.
    EXPECT_FALSE(
        *findKind(adviseFixes(bigTransformer(12000000000, targetGpu("a100"))), "component_fp32")
             ->fits);
}

// A GPU by hand, without a name: its words, and the memory check of a block fix.
TEST(Advice, HandGivenTargetAndBlockFixMemory) {
    AdviceInput in = bigTransformer(4000000000, targetGpuByHand("7.5", 11));
    in.bisection = fixedBisection();
    const Advice a = adviseFixes(in);
    EXPECT_EQ(a.notes.at(0).rfind("advice for a GPU of compute capability 7.5 with 11 GB", 0), 0u)
        << a.notes[0];
    const Fix* blocks = findKind(a, "blocks");
    ASSERT_NE(blocks, nullptr);
    ASSERT_TRUE(blocks->fits.has_value());
    EXPECT_TRUE(*blocks->fits) << blocks->cost;  // bf16 blocks: fp16's size, 8.0 GB
    EXPECT_EQ(blocks->rank, 1);
    EXPECT_NE(blocks->cost.find("in the GPU's 11 GB"), std::string::npos) << blocks->cost;
    EXPECT_NE(blocks->cost.find("on a compute capability 7.5 GPU bf16 runs, slow"),
              std::string::npos)
        << blocks->cost;
    // fp32 for 4 of 6 blocks: 4e9 x (2/6 x 2 + 4/6 x 4) bytes = 13.3 GB > 11 GB: below the
    // transformer in bf16 (8.0 GB, slow), above the transformer in fp32 (16 GB).
    in.bisection->safeFormat = Format::FP32;
    const Fix* fp32Blocks = findKind(adviseFixes(in), "blocks");
    ASSERT_NE(fp32Blocks, nullptr);
    EXPECT_NEAR(fp32Blocks->weightGB, 4e9 * 20 / 6 / 1e9 + 0.0168, 1e-6);
    EXPECT_FALSE(*fp32Blocks->fits);
    EXPECT_EQ(fp32Blocks->rank, 2);
}

// The report states the target and its memory; the JSON carries it and reads back.
TEST(Advice, TheReportStatesTheTargetAndReadsItBack) {
    Report r = test::makeComparisonReport();
    r.environment.device = "cpu";
    r.environment.cpu = "AMD EPYC 7B13 (avx2, no avx512)";
    addAdvice(r, targetGpu("t4"));
    ASSERT_TRUE(r.advice && r.advice->device);
    EXPECT_EQ(r.advice->notes.at(0).find("the run itself was on the CPU AMD EPYC 7B13 (fp16 "
                                         "emulated)"),
              std::string("advice for a Tesla T4 (compute capability 7.5, 16 GB); ").size());
    // The fixture's 16 M parameters: a weight total in MB.
    const Fix& first = r.advice->fixes.at(0);
    EXPECT_NE(first.cost.find(" MB of weights in the Tesla T4's 16 GB"), std::string::npos)
        << first.cost;
    const Report back = reportFromJson(reportToJson(r));
    ASSERT_TRUE(back.advice && back.advice->device);
    const DeviceInfo& d = *back.advice->device;
    EXPECT_TRUE(d.isCuda());
    EXPECT_TRUE(d.target);
    EXPECT_EQ(d.name, "Tesla T4");
    EXPECT_EQ(d.capabilityText(), "7.5");
    EXPECT_DOUBLE_EQ(d.memoryGB, 16);
    ASSERT_EQ(back.advice->fixes.size(), r.advice->fixes.size());
    for (size_t i = 0; i < r.advice->fixes.size(); ++i) {
        EXPECT_EQ(back.advice->fixes[i].fits, r.advice->fixes[i].fits);
        EXPECT_NEAR(back.advice->fixes[i].weightGB, r.advice->fixes[i].weightGB, 1e-12);
    }
    const std::string html = reportToHtml(r);
    test::expectHas(html, {"Target device:</b> GPU Tesla T4 (compute capability 7.5) with 16 GB",
                           "Advice for:</b> GPU Tesla T4"});
    // An advice without a device (older reports) reads back without one.
    r.advice->device.reset();
    EXPECT_FALSE(reportFromJson(reportToJson(r)).advice->device.has_value());
}
