#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "numerics/tensor_stats.h"

using namespace hs;

namespace {
const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST(TensorStats, MatchesTorchOnFiniteData) {
    torch::manual_seed(1);
    auto x = torch::randn({1000, 37}) * 5 + 2;
    auto s = computeStats(x);
    EXPECT_EQ(s.count, x.numel());
    EXPECT_EQ(s.finite, x.numel());
    EXPECT_FLOAT_EQ(float(s.min), x.min().item<float>());
    EXPECT_FLOAT_EQ(float(s.max), x.max().item<float>());
    EXPECT_FLOAT_EQ(float(s.absMax), x.abs().max().item<float>());
    EXPECT_NEAR(s.mean, x.to(torch::kFloat64).mean().item<double>(), 1e-9);
    EXPECT_NEAR(s.std, x.to(torch::kFloat64).std().item<double>(), 1e-9);
    EXPECT_TRUE(s.allFinite());
}

TEST(TensorStats, NonFiniteValuesAreCountedApartFromTheMoments) {
    auto x = torch::tensor({1.f, -3.f, kNan, kInf, -kInf, kInf, 70000.f, -1e-6f, 0.f, kNan});
    auto s = computeStats(x);
    EXPECT_EQ(s.count, 10);
    EXPECT_EQ(s.finite, 5);
    EXPECT_EQ(s.nan, 2);
    EXPECT_EQ(s.posInf, 2);
    EXPECT_EQ(s.negInf, 1);
    EXPECT_EQ(s.nonFinite(), 5);
    EXPECT_EQ(s.min, -3.0);
    EXPECT_EQ(s.max, 70000.0);
    EXPECT_EQ(s.absMax, 70000.0);
    EXPECT_NEAR(s.mean, (1 - 3 + 70000 - 1e-6) / 5.0, 1e-6);
    EXPECT_EQ(s.overFp16, 1);
    EXPECT_EQ(s.subnormalFp16, 1);  // -1e-6; the zero is not counted
}

TEST(TensorStats, AllNonFiniteAndEmptyTensors) {
    auto s = computeStats(torch::full({4}, kNan));
    EXPECT_EQ(s.finite, 0);
    EXPECT_EQ(s.nan, 4);
    EXPECT_TRUE(std::isnan(s.mean));
    auto e = computeStats(torch::empty({0, 3}));
    EXPECT_EQ(e.count, 0);
    EXPECT_EQ(e.finite, 0);
    EXPECT_TRUE(e.allFinite());
    EXPECT_TRUE(std::isnan(e.max));
}

TEST(TensorStats, DevicePathAgreesWithTheCpuKernel) {
    // statsVector() is the path CUDA tensors take; check it against the CPU kernel.
    torch::manual_seed(2);
    auto x = torch::randn({5000}) * 4e4;
    x.index_put_({torch::tensor({3, 17})}, kNan);
    x.index_put_({torch::tensor({5})}, -kInf);
    x.index_put_({torch::tensor({9})}, 3e-6f);
    auto a = computeStats(x);
    auto v = statsVector(x).contiguous();
    auto b = unpackStats(v.data_ptr<double>());
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.finite, b.finite);
    EXPECT_EQ(a.nan, b.nan);
    EXPECT_EQ(a.negInf, b.negInf);
    EXPECT_EQ(a.overFp16, b.overFp16);
    EXPECT_EQ(a.subnormalFp16, b.subnormalFp16);
    EXPECT_DOUBLE_EQ(a.min, b.min);
    EXPECT_DOUBLE_EQ(a.max, b.max);
    EXPECT_NEAR(a.mean, b.mean, 1e-6 * std::fabs(a.mean) + 1e-9);
    EXPECT_NEAR(a.std, b.std, 1e-6 * a.std);
    auto empty = statsVector(torch::empty({0}));
    EXPECT_EQ(unpackStats(empty.data_ptr<double>()).count, 0);
}

TEST(TensorStats, HalfTypesAndNonContiguousInput) {
    auto x = (torch::randn({64, 48}) * 100).t();
    auto ref = computeStats(x.contiguous());
    auto s = computeStats(x);
    EXPECT_EQ(s.max, ref.max);
    auto h = computeStats(x.to(torch::kBFloat16));
    EXPECT_NEAR(h.max, ref.max, std::fabs(ref.max) * 1e-2);
    auto f = computeStats(torch::tensor({65504.f, 1.f}).to(torch::kHalf) * 2);  // Inf in fp16
    EXPECT_EQ(f.posInf, 1);
}

TEST(TensorStats, ChannelsLastAndSlicedTensorsGiveTheSameRecord) {
    auto x = torch::randn({2, 8, 5, 7}) * 10;
    x.index_put_({1, 3, 2, 4}, std::numeric_limits<float>::quiet_NaN());
    x.index_put_({0, 0, 0, 0}, 70000.f);
    const auto ref = computeStats(x);
    for (const auto& v : {x.contiguous(at::MemoryFormat::ChannelsLast),  // dense, read in place
                          x.permute({0, 2, 3, 1}),                       // dense, read in place
                          torch::cat({x, x}, 1).narrow(1, 0, 8)}) {      // strided: copied
        const auto s = computeStats(v);
        EXPECT_EQ(s.count, ref.count);
        EXPECT_EQ(s.nan, 1);
        EXPECT_EQ(s.overFp16, ref.overFp16);
        EXPECT_EQ(s.min, ref.min);
        EXPECT_EQ(s.max, ref.max);
        EXPECT_NEAR(s.mean, ref.mean, 1e-9 * std::fabs(ref.mean) + 1e-12);
    }
}
