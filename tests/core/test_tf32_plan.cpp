// tf32 as a plan format (vae=tf32, transformer.transformer_blocks.3=tf32): the rounding to 10
// fraction bits, the emulated product of a linear layer and a convolution against results
// worked out by hand, and a demo run whose transformer's products are tf32 while everything it
// stores stays fp32.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "models/common/layers.h"
#include "models/common/weights.h"
#include "numerics/format.h"
#include "numerics/precision_policy.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "runtime/demo_location.h"

using namespace hs;

namespace {

// The nearest value with 10 fraction bits (ties to even), computed in double from the binade:
// the reference the integer rounding is checked against.
float tf32Reference(float v) {
    if (!std::isfinite(v) || v == 0) return v;
    int e = 0;
    std::frexp(double(v), &e);                                           // |v| in [2^(e-1), 2^e)
    const double quantum = std::ldexp(1.0, std::max(e - 1, -126) - 10);  // subnormals: 2^-136
    const double r = std::nearbyint(double(v) / quantum) * quantum;      // ties to even
    return std::fabs(r) > 3.4011621342146535e38 ? std::copysign(INFINITY, v) : float(r);
}

TEST(Tf32Plan, FormatReadsWritesAndStoresFp32) {
    const PrecisionPlan p = PrecisionPlan::parse("vae=tf32,transformer.transformer_blocks.3=TF32");
    EXPECT_EQ(p.toString(), "vae=tf32,transformer.transformer_blocks.3=tf32");
    EXPECT_EQ(p.resolve("vae.decoder.conv_in"), Format::TF32);
    EXPECT_EQ(limitsOf(Format::TF32).mantissaBits, 10);
    EXPECT_TRUE(storesFp32(Format::TF32));
    EXPECT_EQ(scalarTypeOf(Format::TF32), torch::kFloat32);
    // The CPU has no tf32 arithmetic: emulated, in fp32 memory.
    const torch::Device cpu(torch::kCPU);
    EXPECT_EQ(executionFor(Format::TF32, cpu), Execution::Emulated);
    const PrecisionPolicy policy(p, cpu);
    EXPECT_EQ(policy.computeTypeFor("vae.decoder"), torch::kFloat32);
    // Nothing is rounded where a tf32 module stores its output.
    const torch::Tensor x = torch::tensor({1.0f + std::ldexp(1.0f, -20)});
    EXPECT_TRUE(torch::equal(policy.store("vae.decoder", x), x));
}

TEST(Tf32Plan, RoundingKeepsTenFractionBitsToNearestEven) {
    const float one = 1.0f;
    const std::vector<float> cases = {
        one + std::ldexp(one, -11),                         // halfway, even below: 1
        one + 3 * std::ldexp(one, -11),                     // halfway, even above: 1 + 2^-9
        one + std::ldexp(one, -11) + std::ldexp(one, -20),  // past halfway: 1 + 2^-10
        -2.5f,
        3.4028234e38f,                  // fp32's largest rounds past tf32's: Inf
        std::ldexp(one, -130) * 1.37f,  // subnormal
        0.0f,
        -0.0f,
        INFINITY,
        -INFINITY};
    torch::manual_seed(5);
    std::vector<float> xs = cases;
    const torch::Tensor r = torch::randn({5000}) * torch::pow(2.0, torch::randint(-40, 40, {5000}));
    for (int64_t i = 0; i < r.numel(); ++i) xs.push_back(r[i].item<float>());
    const torch::Tensor x = torch::tensor(xs);
    // The CPU's vectorised loop and the tensor-op path a GPU takes give the same bits.
    for (const torch::Tensor& y : {roundToTf32(x), roundToTf32WithTensorOps(x)}) {
        for (int64_t i = 0; i < x.numel(); ++i)
            ASSERT_EQ(y[i].item<float>(), tf32Reference(xs[size_t(i)])) << xs[size_t(i)];
    }
    EXPECT_EQ(roundToTf32(x)[0].item<float>(), 1.0f);
    EXPECT_EQ(roundToTf32(x)[1].item<float>(), 1.0f + std::ldexp(1.0f, -9));
    EXPECT_TRUE(std::isinf(roundToTf32(x)[4].item<float>()));
    const torch::Tensor nan = torch::tensor({NAN, -NAN});
    EXPECT_TRUE(torch::isnan(roundToTf32(nan)).all().item<bool>());
    EXPECT_TRUE(torch::isnan(roundToTf32WithTensorOps(nan)).all().item<bool>());
    EXPECT_TRUE(torch::equal(roundTo(x, Format::TF32), roundToTf32(x)));
}

// A module of one linear layer and one convolution, loaded under `plan` as component "m".
struct Products : torch::nn::Module {
    Products() {
        lin = register_module("lin", nn::Linear(2, 1, false));
        conv = register_module("conv", nn::Conv2d(1, 1, 1, 1, 0, false));
    }
    nn::Linear lin{nullptr};
    nn::Conv2d conv{nullptr};
};

// The products whose tf32 and fp32 results are known exactly:
//   linear: w = [1 + 2^-12, 1], x = [1, 1 + 2^-13]: fp32 2 + 3 * 2^-13; tf32 1 + 1 = 2
//   conv:   w = 1 + 2^-12,      x = 1 + 2^-11:      fp32 1 + 3 * 2^-12 + 2^-23; tf32 1 * 1 = 1
TEST(Tf32Plan, LinearAndConvolutionMultiplyTheRoundedOperands) {
    const float a = std::ldexp(1.0f, -12), b = std::ldexp(1.0f, -13), c = std::ldexp(1.0f, -11);
    WeightMap weights;
    weights.emplace("lin.weight", torch::tensor({{1 + a, 1.0f}}));
    weights.emplace("conv.weight", torch::full({1, 1, 1, 1}, 1 + a));
    const torch::Tensor xl = torch::tensor({{1.0f, 1 + b}});
    const torch::Tensor xc = torch::full({1, 1, 1, 1}, 1 + c);
    const torch::Device cpu(torch::kCPU);
    auto outputs = [&](const std::string& plan) {
        Products m;
        loadWeights(m, weights, "m", PrecisionPolicy(PrecisionPlan::parse(plan), cpu));
        return std::pair{m.lin->forward(xl).item<float>(), m.conv->forward(xc).item<float>()};
    };
    const auto fp32 = outputs("");
    EXPECT_EQ(fp32.first, 2 + 3 * b);
    EXPECT_EQ(fp32.second, 1 + 3 * a + std::ldexp(1.0f, -23));
    const auto tf32 = outputs("m=tf32");
    EXPECT_EQ(tf32.first, 2.0f);
    EXPECT_EQ(tf32.second, 1.0f);
    // A rule on one layer leaves the other in fp32.
    const auto linOnly = outputs("m.lin=tf32");
    EXPECT_EQ(linOnly.first, 2.0f);
    EXPECT_EQ(linOnly.second, fp32.second);

    Products m;
    loadWeights(m, weights, "m", PrecisionPolicy(PrecisionPlan::parse("m.conv=tf32"), cpu));
    EXPECT_EQ(m.lin->tf32, nn::Tf32Mode::Off);
    EXPECT_EQ(m.conv->tf32, nn::Tf32Mode::Emulated);
    // The weights themselves stay as loaded: tf32 rounds operands, not storage.
    EXPECT_EQ(m.conv->weight.item<float>(), 1 + a);
}

TEST(Tf32Plan, ADemoRunInTf32DiffersFromFp32OnlyByTheProducts) {
    const std::string demo = findDemoModel();
    ASSERT_FALSE(demo.empty());
    const torch::Device cpu(torch::kCPU);
    auto run = [&](const std::string& plan) {
        auto p = Pipeline::load(demo, PrecisionPlan::parse(plan), cpu);
        return p->run(test::defaultRunOf(*p, 1, 4));
    };
    const RunRecord fp32 = run("transformer=fp32,vae=fp32");  // "" would be the stored bf16
    const RunRecord tf32 = run("transformer=tf32,vae=tf32");
    const RunRecord bf16 = run("transformer=bf16,vae=bf16");
    ASSERT_TRUE(fp32.savedImage && tf32.savedImage && bf16.savedImage);
    EXPECT_EQ(tf32.verdict, fp32.verdict);
    ASSERT_EQ(tf32.steps.size(), fp32.steps.size());
    // The products lost 13 bits: the latents move, less than bf16's 16 lost bits move them.
    auto latentChange = [&](const RunRecord& r) {
        return std::fabs(r.steps.back().latent.absMax - fp32.steps.back().latent.absMax);
    };
    auto worstPixel = [&](const RunRecord& r) {
        const auto& x = fp32.savedImage->rgb;
        const auto& y = r.savedImage->rgb;
        int worst = 0;
        for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
            worst = std::max(worst, std::abs(int(x[i]) - int(y[i])));
        return worst;
    };
    std::printf("latent |max| change: tf32 %.3g, bf16 %.3g; worst pixel: tf32 %d, bf16 %d\n",
                latentChange(tf32), latentChange(bf16), worstPixel(tf32), worstPixel(bf16));
    EXPECT_GT(latentChange(tf32), 0.0);
    EXPECT_LT(latentChange(tf32), latentChange(bf16));
    EXPECT_LT(worstPixel(tf32), worstPixel(bf16));
    EXPECT_NE(tf32.effectivePlan.find("transformer=tf32"), std::string::npos) << tf32.effectivePlan;
}

}  // namespace
