// The memory check before a load: what the weights take in the plan's formats, and a refusal
// that names the need and the budget, on the shipped demo model.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "io/model_folder.h"
#include "pipeline/memory_check.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"
#include "test_util.h"

using namespace hs;

using ScopedLimit = test::ScopedMemoryLimit;

TEST(MemoryCheck, WeightBytesFollowThePlanFormats) {
    const std::string demo = findDemoModel();
    ASSERT_FALSE(demo.empty());
    const ComponentFolder tr = openComponent(demo + "/transformer");
    int64_t elements = 0;
    for (const auto& n : tr.weights.names()) elements += tr.weights.info(n).numel();
    const torch::Device cpu(torch::kCPU);
    const WeightMap weights = weightMapOf(tr.weights);
    const std::vector<ComponentWeights> parts = {{"transformer", &weights}};
    // Emulated bf16 keeps fp32 tensors too (values rounded to bf16).
    EXPECT_EQ(weightBytes(parts, PrecisionPolicy(PrecisionPlan::parse("transformer=bf16"), cpu)),
              uint64_t(elements) * 4);
    test::ScopedCpuBf16 native(CpuBf16::Native);
    EXPECT_EQ(weightBytes(parts, PrecisionPolicy(PrecisionPlan::parse("transformer=bf16"), cpu)),
              uint64_t(elements) * 2);
    EXPECT_EQ(weightBytes(parts, PrecisionPolicy(PrecisionPlan::parse("transformer=fp32"), cpu)),
              uint64_t(elements) * 4);
    // Emulated fp16 keeps fp32 tensors (values rounded to fp16).
    EXPECT_EQ(weightBytes(parts, PrecisionPolicy(PrecisionPlan::parse("transformer=fp16"), cpu)),
              uint64_t(elements) * 4);
    // A block rule counts only that block's tensors in its format.
    const auto mixed =
        PrecisionPlan::parse("transformer=bf16,transformer.transformer_blocks.0=fp32");
    int64_t block0 = 0;
    for (const auto& n : tr.weights.names())
        if (n.rfind("transformer_blocks.0.", 0) == 0) block0 += tr.weights.info(n).numel();
    EXPECT_GT(block0, 0);
    EXPECT_EQ(weightBytes(parts, PrecisionPolicy(mixed, cpu)),
              uint64_t(elements) * 2 + uint64_t(block0) * 2);
}

TEST(MemoryCheck, APipelineThatDoesNotFitStreamsOrIsRefusedBeforeLoading) {
    const std::string demo = findDemoModel();
    const torch::Device cpu(torch::kCPU);
    // The demo model: ~17 MB in native bf16, ~34 MB in fp32 (and in emulated bf16), its
    // transformer 23.7 MB of it in fp32. 30 MB holds native bf16 whole; emulated, the
    // transformer streams block by block.
    {
        ScopedLimit limit("30");
        {
            test::ScopedCpuBf16 emulated(CpuBf16::Emulated);
            auto p = Pipeline::load(demo, PrecisionPlan(), cpu);
            EXPECT_NE(p->memoryPlan().find("transformer streamed block by block"),
                      std::string::npos)
                << p->memoryPlan();
        }
        test::ScopedCpuBf16 native(CpuBf16::Native);
        auto p = Pipeline::load(demo, PrecisionPlan(), cpu);
        EXPECT_NE(p->memoryPlan().find("all components loaded whole"), std::string::npos)
            << p->memoryPlan();
    }
    // 6 MB holds not even the encoders and the VAE: refused, naming each part's need.
    ScopedLimit limit("6");
    test::ScopedCpuBf16 emulated(CpuBf16::Emulated);
    // An fp32 load past the limit is refused.
    const std::string m = test::messageOf<PipelineError>([&] {
        Pipeline::load(demo, PrecisionPlan::parse("text_encoder=fp32,transformer=fp32,vae=fp32"),
                       cpu);
    });
    EXPECT_HAS(m, "even streamed");
    EXPECT_HAS(m, "transformer 23.7 MB whole");
    EXPECT_HAS(m, "HALFSCOPE_MEMORY_LIMIT_MB");
    EXPECT_HAS(m, "--cpu-bf16 native");
}

TEST(MemoryCheck, TheBudgetIsTheLimitOrWhatTheSystemHasFree) {
    const torch::Device cpu(torch::kCPU), cuda(torch::kCUDA, 1);
    GpuMemoryCap cap;
    cap.device = 1;
    cap.capGiB = 16;
    cap.totalGiB = 139.8;
    {
        ScopedLimit limit("64");
        for (const auto& device : {cpu, cuda}) {
            const auto b = memoryBudget(device, cap);
            ASSERT_TRUE(b.has_value());
            EXPECT_EQ(b->bytes, uint64_t(64) * 1000 * 1000);
            EXPECT_EQ(b->source, MemoryBudget::Source::Environment);
        }
    }
    {
        // Not a number, or absurd: ignored, as if unset.
        ScopedLimit limit("1e300");
        EXPECT_EQ(memoryBudget(cpu)->source, MemoryBudget::Source::Available);
    }
    const auto free = memoryBudget(cpu);
    ASSERT_TRUE(free.has_value());  // Linux: /proc/meminfo
    EXPECT_GT(free->bytes, uint64_t(16) * 1024 * 1024);
    EXPECT_EQ(free->source, MemoryBudget::Source::Available);
    // A CUDA device: its cap (GiB, as nvidia-smi counts), else unknown.
    const auto capped = memoryBudget(cuda, cap);
    ASSERT_TRUE(capped.has_value());
    EXPECT_EQ(capped->bytes, uint64_t(16) << 30);
    EXPECT_EQ(capped->source, MemoryBudget::Source::GpuCap);
    EXPECT_FALSE(memoryBudget(cuda, std::nullopt).has_value());
    EXPECT_FALSE(memoryBudget(cuda).has_value()) << "no cap was set in this process";
}
