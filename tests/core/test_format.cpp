#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "numerics/format.h"

using namespace hs;

TEST(Format, LimitsMatchTorchFinfo) {
    EXPECT_EQ(limitsOf(Format::FP16).maxFinite, 65504.0);
    EXPECT_EQ(limitsOf(Format::FP16).minNormal, std::ldexp(1.0, -14));
    EXPECT_EQ(limitsOf(Format::FP16).minSubnormal, std::ldexp(1.0, -24));
    EXPECT_EQ(limitsOf(Format::FP16).epsilon, std::ldexp(1.0, -10));
    EXPECT_EQ(limitsOf(Format::BF16).epsilon, std::ldexp(1.0, -7));
    EXPECT_EQ(limitsOf(Format::BF16).minSubnormal, std::ldexp(1.0, -133));
    EXPECT_FLOAT_EQ(float(limitsOf(Format::BF16).maxFinite),
                    float(c10::BFloat16(0x7F7F, c10::BFloat16::from_bits())));
    EXPECT_EQ(limitsOf(Format::FP32).maxFinite, double(std::numeric_limits<float>::max()));
}

TEST(Format, ParsesNamesAndAliases) {
    EXPECT_EQ(parseFormat("fp16"), Format::FP16);
    EXPECT_EQ(parseFormat("Half"), Format::FP16);
    EXPECT_EQ(parseFormat("bfloat16"), Format::BF16);
    EXPECT_EQ(parseFormat("FP32"), Format::FP32);
    EXPECT_FALSE(parseFormat("fp8").has_value());
    EXPECT_FALSE(parseFormat("").has_value());
    for (auto f : {Format::FP32, Format::BF16, Format::FP16})
        EXPECT_EQ(parseFormat(formatName(f)), f);
}

// The fast CPU path must agree bit for bit with LibTorch's own cast, including ties, the
// overflow boundary (65519.99 stays finite, 65520 rounds to Inf), subnormals, NaN and Inf.
TEST(Format, RoundToMatchesCastExactly) {
    torch::manual_seed(0);
    auto x = torch::cat(
        {torch::randn({100000}) * 3e4, torch::randn({10000}) * 1e-6,
         torch::tensor({65504.f, 65519.99f, 65520.f, -65520.f, 1e9f, -1e9f, 1.0f + 1.0f / 2048,
                        1.0f + 3.0f / 2048, 3e-8f, 2.9e-8f, std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), 0.f, -0.f})});
    for (auto f : {Format::FP16, Format::BF16}) {
        auto fast = roundTo(x, f);
        auto ref = x.to(scalarTypeOf(f)).to(torch::kFloat32);
        EXPECT_EQ(fast.scalar_type(), torch::kFloat32);
        EXPECT_TRUE(torch::equal(fast.view(torch::kInt32), ref.view(torch::kInt32)))
            << formatName(f);
    }
    // The studio runs with denormals flushed (runtime.h): the vector path must not change then.
    const bool flush = at::globalContext().setFlushDenormal(true);
    const auto flushed = roundTo(x, Format::FP16);
    at::globalContext().setFlushDenormal(false);
    if (flush)
        EXPECT_TRUE(torch::equal(flushed.view(torch::kInt32),
                                 x.to(torch::kHalf).to(torch::kFloat32).view(torch::kInt32)));
    auto y = roundTo(torch::tensor({65519.99f, 65520.f}), Format::FP16);
    EXPECT_EQ(y[0].item<float>(), 65504.f);
    EXPECT_TRUE(std::isinf(y[1].item<float>()));
    auto nan = roundTo(torch::tensor({std::nanf("")}), Format::FP16);
    EXPECT_TRUE(std::isnan(nan[0].item<float>()));
}

TEST(Format, RoundToKeepsNonContiguousValues) {
    auto x = torch::randn({64, 32}).t() * 1e5;
    auto r = roundTo(x, Format::FP16);
    EXPECT_TRUE(torch::equal(r, x.to(torch::kHalf).to(torch::kFloat)));
    EXPECT_TRUE(roundTo(x, Format::FP32).is_same(x));
}

TEST(Format, ExecutionOnCpuEmulatesOnlyFp16) {
    torch::Device cpu(torch::kCPU);
    EXPECT_EQ(executionFor(Format::FP32, cpu), Execution::Native);
    EXPECT_EQ(executionFor(Format::BF16, cpu), Execution::Native);
    EXPECT_EQ(executionFor(Format::FP16, cpu), Execution::Emulated);
    EXPECT_EQ(computeTypeOf(Format::FP16, cpu), torch::kFloat32);
    EXPECT_EQ(computeTypeOf(Format::BF16, cpu), torch::kBFloat16);
    EXPECT_EQ(executionName(Execution::Emulated), "emulated");
}
