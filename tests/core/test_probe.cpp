#include <gtest/gtest.h>
#include <torch/torch.h>

#include "numerics/probe.h"
#include "test_util.h"

using namespace hs;

namespace {
torch::Device cpuProbe() {
    return torch::Device(torch::kCPU);
}
}  // namespace

TEST(Probe, RecordsOnlyPointsWithinTheLevel) {
    ProbeContext p(PrecisionPlan(), cpuProbe(), ProbeLevel::Layer);
    auto x = torch::ones({4});
    p.point({"m.block", ProbeLevel::Module}, x);
    p.point({"m.block.attn", ProbeLevel::Layer}, x);
    p.point({"m.block.attn.to_q", ProbeLevel::Op}, x);
    ASSERT_EQ(p.records().size(), 2u);
    EXPECT_EQ(p.records()[0].name, "m.block");
    EXPECT_EQ(p.records()[1].name, "m.block.attn");
    ProbeContext off(PrecisionPlan(), cpuProbe(), ProbeLevel::Off);
    off.point({"m.block", ProbeLevel::Module}, x);
    EXPECT_TRUE(off.records().empty());
}

TEST(Probe, EmulatedFp16RoundsEveryPointEvenWithProbingOff) {
    ProbeContext p(PrecisionPlan::parse("transformer=fp16,transformer.keep=fp32"), cpuProbe(),
                   ProbeLevel::Off);
    auto x = torch::tensor({70000.f, 1.0f + 1.0f / 4096});
    auto y = p.point({"transformer.blocks.0.ff", ProbeLevel::Op}, x);
    EXPECT_TRUE(std::isinf(y[0].item<float>()));
    EXPECT_EQ(y[1].item<float>(), 1.0f);  // rounded to fp16's 10 fraction bits
    auto z = p.point({"transformer.keep.ff", ProbeLevel::Op}, x);
    EXPECT_EQ(z[0].item<float>(), 70000.f);
    EXPECT_EQ(p.policy().executionFor("transformer.blocks.0"), Execution::Emulated);
    EXPECT_EQ(p.policy().computeTypeFor("transformer.blocks.0"), torch::kFloat32);
    EXPECT_EQ(p.policy().formatFor("vae"), Format::FP32);
}

TEST(Probe, FirstNonFiniteIsTheEarliestPointInCallOrder) {
    ProbeContext p(PrecisionPlan::parse("t=fp16"), cpuProbe(), ProbeLevel::Op);
    p.setStep(0);
    auto x = torch::full({8}, 1000.f);
    x = p.point({"t.blocks.0", ProbeLevel::Module}, x);
    x = p.point({"t.blocks.1.ff", ProbeLevel::Op}, x * 100);  // 1e5 > 65504 -> Inf
    x = p.point({"t.blocks.1", ProbeLevel::Module}, x - x);   // Inf - Inf -> NaN
    p.setStep(1);
    p.point({"t.blocks.0", ProbeLevel::Module}, x);
    const auto& f = p.firstNonFinite();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->at.name, "t.blocks.1.ff");
    EXPECT_EQ(f->at.step, 0);
    EXPECT_EQ(f->at.stats.posInf, 8);
    ASSERT_TRUE(f->input.has_value());
    EXPECT_EQ(f->input->name, "t.blocks.0");
    EXPECT_EQ(f->input->stats.absMax, 1000.0);
    EXPECT_EQ(f->index, 1u);
}

TEST(Probe, TakeRecordsKeepsTheFirstFailureAcrossSteps) {
    ProbeContext p(PrecisionPlan::parse("t=fp16"), cpuProbe(), ProbeLevel::Module);
    p.setStep(0);
    p.point({"t.a", ProbeLevel::Module}, torch::ones({2}));
    auto step0 = p.takeRecords();
    EXPECT_EQ(step0.size(), 1u);
    EXPECT_FALSE(p.firstNonFinite().has_value());
    p.setStep(1);
    p.point({"t.b", ProbeLevel::Module}, torch::full({2}, 1e6f));
    auto step1 = p.takeRecords();
    ASSERT_TRUE(p.firstNonFinite().has_value());
    EXPECT_EQ(p.firstNonFinite()->at.name, "t.b");
    EXPECT_EQ(p.firstNonFinite()->at.step, 1);
    EXPECT_EQ(p.firstNonFinite()->input->name, "t.a");  // from the previous, taken, step
    EXPECT_EQ(p.firstNonFinite()->index, 1u);
    EXPECT_TRUE(p.records().empty());
}

TEST(Probe, RecordsFormatAndExecutionOfEachPoint) {
    for (auto mode : {CpuBf16::Emulated, CpuBf16::Native}) {
        test::ScopedCpuBf16 m(mode);
        ProbeContext p(PrecisionPlan::parse("vae=bf16,vae.decoder=fp16"), cpuProbe(),
                       ProbeLevel::Layer);
        auto x = torch::full({2}, 1.00390625f);  // 1 + 2^-8: bf16 rounds it to 1
        auto y = p.point({"vae.encoder.conv_in", ProbeLevel::Layer}, x);
        p.point({"vae.decoder.conv_in", ProbeLevel::Layer}, torch::ones({2}));
        EXPECT_EQ(p.records()[0].format, Format::BF16);
        EXPECT_EQ(p.records()[0].execution,
                  mode == CpuBf16::Native ? Execution::Native : Execution::Emulated);
        // Emulated bf16 rounds at the point; native leaves the tensor to its own dtype.
        EXPECT_EQ(y[0].item<float>(), mode == CpuBf16::Native ? 1.00390625f : 1.f);
        EXPECT_EQ(p.records()[1].format, Format::FP16);
        EXPECT_EQ(p.records()[1].execution, Execution::Emulated);
    }
}

TEST(Probe, ATensorRecordedTwiceIsReducedOnceUnlessItChanged) {
    ProbeContext p(PrecisionPlan(), cpuProbe(), ProbeLevel::Layer);
    auto x = torch::tensor({1.f, 2.f, 3.f});
    p.point({"vae.decoder.up_blocks.3.resnets.2", ProbeLevel::Layer}, x);
    p.point({"vae.decoder.up_blocks.3", ProbeLevel::Module}, x);  // the same tensor: same record
    x.mul_(100);                                                  // written in place since
    p.point({"vae.decoder.after", ProbeLevel::Layer}, x);
    auto view = x.view({3, 1});  // same memory, another shape
    view.index_put_({0, 0}, 1e6f);
    p.point({"vae.decoder.view", ProbeLevel::Layer}, view);
    // A new tensor with equal values and size, allocated after the old one could have been
    // freed, is reduced for itself.
    auto fresh = torch::tensor({7.f, 8.f, 9.f});
    p.point({"vae.decoder.fresh", ProbeLevel::Layer}, fresh);
    const auto& r = p.records();
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[0].stats.max, 3);
    EXPECT_EQ(r[1].stats.max, 3);
    EXPECT_EQ(r[2].stats.max, 300);
    EXPECT_EQ(r[3].stats.max, 1e6);
    EXPECT_EQ(r[4].stats.max, 9);
}
