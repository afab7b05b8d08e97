#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "numerics/format.h"
#include "test_util.h"

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

TEST(Format, ExecutionOnCpuFollowsTheBf16Mode) {
    torch::Device cpu(torch::kCPU);
    EXPECT_EQ(cpuBf16Mode(), CpuBf16::Emulated);  // the default: the reference arithmetic
    {
        test::ScopedCpuBf16 m(CpuBf16::Emulated);
        EXPECT_EQ(executionFor(Format::FP32, cpu), Execution::Native);
        EXPECT_EQ(executionFor(Format::BF16, cpu), Execution::Emulated);
        EXPECT_EQ(executionFor(Format::FP16, cpu), Execution::Emulated);
        EXPECT_EQ(computeTypeOf(Format::FP16, cpu), torch::kFloat32);
        EXPECT_EQ(computeTypeOf(Format::BF16, cpu), torch::kFloat32);
        EXPECT_NE(cpuBf16Description().find("bf16 emulated"), std::string::npos);
    }
    {
        test::ScopedCpuBf16 m(CpuBf16::Native);
        EXPECT_EQ(executionFor(Format::BF16, cpu), Execution::Native);
        EXPECT_EQ(computeTypeOf(Format::BF16, cpu), torch::kBFloat16);
        EXPECT_EQ(executionFor(Format::FP16, cpu), Execution::Emulated);
        EXPECT_NE(cpuBf16Description().find("bf16 native"), std::string::npos);
    }
    {
        test::ScopedCpuBf16 m(CpuBf16::Auto);
        EXPECT_EQ(executionFor(Format::BF16, cpu),
                  cpuHasBf16Instructions() ? Execution::Native : Execution::Emulated);
    }
    EXPECT_EQ(executionName(Execution::Emulated), "emulated");
}

TEST(Format, Bf16ModesResolveByTheCpusInstructions) {
    EXPECT_EQ(resolveCpuBf16(CpuBf16::Emulated, true), Execution::Emulated);
    EXPECT_EQ(resolveCpuBf16(CpuBf16::Emulated, false), Execution::Emulated);
    EXPECT_EQ(resolveCpuBf16(CpuBf16::Native, false), Execution::Native);  // forced
    EXPECT_EQ(resolveCpuBf16(CpuBf16::Auto, true), Execution::Native);
    EXPECT_EQ(resolveCpuBf16(CpuBf16::Auto, false), Execution::Emulated);
    for (auto m : {CpuBf16::Emulated, CpuBf16::Native, CpuBf16::Auto})
        EXPECT_EQ(parseCpuBf16(cpuBf16Name(m)), m);
    EXPECT_FALSE(parseCpuBf16("fast").has_value());
    EXPECT_FALSE(parseCpuBf16("").has_value());
}

TEST(Format, Bf16RoundingMatchesLibTorchsCastBitForBit) {
    // Ties to even, the carry into the exponent (past bf16's maximum -> Inf), subnormals,
    // signed zeros, NaN; then random values at every magnitude, more than one SIMD width.
    std::vector<float> special = {0.f,
                                  -0.f,
                                  1.f,
                                  1.00390625f,  // 1 + 2^-8: a tie, stays 1
                                  1.01171875f,  // 1 + 3 * 2^-8: a tie, rounds up to even
                                  3.3895314e38f,
                                  3.3961776e38f,  // past the midpoint to 2^128: Inf
                                  -3.4e38f,
                                  1e-40f,
                                  -1e-45f,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::nanf(""),
                                  -std::nanf("")};
    auto s = torch::tensor(special);
    auto r = torch::cat({s, torch::randn({100003}) * torch::exp(torch::randn({100003}) * 20)});
    auto mine = roundTo(r, Format::BF16);
    auto ref = r.to(torch::kBFloat16).to(torch::kFloat);
    auto bothNaN = torch::isnan(mine) & torch::isnan(ref);
    EXPECT_TRUE(torch::equal(mine.masked_fill(bothNaN, 0), ref.masked_fill(bothNaN, 0)));
    EXPECT_EQ(torch::isnan(mine).sum().item<int64_t>(), torch::isnan(ref).sum().item<int64_t>());
    EXPECT_TRUE(std::isinf(mine[6].item<float>()));
    EXPECT_EQ(mine[4].item<float>(), 1.015625f);
}
