// fp8 weight storage as a plan rule (transformer=fp8-e4m3 / fp8-e5m2): the rule's text, the
// rounding against the fp8 decode tables, and a demo run whose transformer weights are rounded
// to fp8 with one scale per tensor giving exactly the run of the same model loaded from a
// ComfyUI scaled-fp8 file written here code by code.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "fp8_files.h"
#include "io/float8.h"
#include "numerics/format.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "runtime/demo_location.h"
#include "single_file_helpers.h"

using namespace hs;

namespace {

namespace fs = std::filesystem;

TEST(Fp8Plan, RulesReadAndWriteBackAndTheLastWins) {
    const PrecisionPlan p =
        PrecisionPlan::parse("transformer=fp8-e5m2, transformer=bf16, transformer.x=fp8-e4m3");
    EXPECT_EQ(p.toString(), "transformer=bf16,transformer=fp8-e5m2,transformer.x=fp8-e4m3");
    EXPECT_EQ(p.fp8Weights("transformer.blocks.0"), Remedy::Fp8E5M2);
    EXPECT_EQ(p.fp8Weights("transformer.x.y"), Remedy::Fp8E4M3);
    EXPECT_FALSE(p.fp8Weights("vae.decoder").has_value());
    EXPECT_EQ(p.resolve("transformer.x"), Format::BF16);  // the format rule is apart
    try {
        PrecisionPlan::parse("transformer=fp8-e3m4");
        FAIL();
    } catch (const PlanParseError& e) {
        EXPECT_NE(std::string(e.what()).find("fp8-e4m3, fp8-e5m2"), std::string::npos);
    }
}

// Every result is a value of the format, and the nearest one (ties to the even code), as the
// decode table says; the table is the reference, the rounding is arithmetic.
TEST(Fp8Plan, RoundingGivesTheNearestTableValue) {
    torch::manual_seed(3);
    for (const auto& [remedy, f, largest] : {std::tuple{Remedy::Fp8E4M3, Float8::E4M3, 448.0},
                                             {Remedy::Fp8E5M2, Float8::E5M2, 57344.0}}) {
        // Magnitudes across the whole range, subnormals included, and the ties halfway between
        // neighbouring values.
        std::vector<float> xs;
        const auto& table = float8Table(f);
        for (int b = 0; b < 127; ++b)
            if (std::isfinite(table[size_t(b)]) && std::isfinite(table[size_t(b + 1)]) &&
                table[size_t(b + 1)] <= largest)
                xs.push_back(0.5f * (table[size_t(b)] + table[size_t(b + 1)]));
        const torch::Tensor r = torch::randn({4000});
        const torch::Tensor e = torch::randint(-18, 9, {4000}).to(torch::kFloat32);
        const torch::Tensor span = (r * torch::pow(2.0, e)).clamp(-largest, largest);
        for (int64_t i = 0; i < span.numel(); ++i) xs.push_back(span[i].item<float>());
        const torch::Tensor x = torch::tensor(xs);
        const torch::Tensor y = roundToFp8(x, remedy);
        for (int64_t i = 0; i < x.numel(); ++i) {
            const float v = x[i].item<float>();
            const float want = table[test::nearestCode(f, v)];
            ASSERT_EQ(std::fabs(y[i].item<float>()), std::fabs(want)) << v;
        }
    }
    // One scale per tensor: its largest magnitude lands on the format's largest value.
    const torch::Tensor w = torch::tensor({0.25f, -3.0f, 1e-4f});
    const torch::Tensor q = fp8ScaledWeight(w, Remedy::Fp8E4M3);
    EXPECT_FLOAT_EQ(q[1].item<float>(), -3.0f);
    EXPECT_TRUE(
        torch::equal(fp8ScaledWeight(torch::zeros({2, 2}), Remedy::Fp8E4M3), torch::zeros({2, 2})));
}

// The demo's transformer as ComfyUI's scaled e4m3 file: each 2-D+ ".weight" as codes of
// weight / scale with scale = its |max| / 448, a scale_weight beside it, the rest F32.
void writeScaledE4m3(const std::string& path, const WeightMap& weights) {
    std::vector<test::RawTensor> out;
    for (const auto& [key, t] : weights) {
        const torch::Tensor v = t.to(torch::kFloat32).contiguous();
        if (v.dim() < 2 || key.size() < 7 || key.compare(key.size() - 7, 7, ".weight") != 0) {
            out.push_back(test::rawOf(key, v));
            continue;
        }
        const double amax = v.abs().max().item<double>();
        const float scale = amax > 0 ? float(amax / 448.0) : 1.0f;
        std::string codes(size_t(v.numel()), '\0');
        const float* p = v.data_ptr<float>();
        for (int64_t i = 0; i < v.numel(); ++i)
            codes[size_t(i)] = char(test::nearestCode(Float8::E4M3, p[i] / scale));
        out.push_back({key, "F8_E4M3", v.sizes().vec(), codes});
        out.push_back(
            test::rawOf(key.substr(0, key.size() - 6) + "scale_weight", torch::tensor({scale})));
    }
    out.push_back({"scaled_fp8", "F8_E4M3", {0}, ""});
    test::writeRaw(path, out);
}

TEST(Fp8Plan, ADemoRunWithFp8WeightsIsTheRunOfAScaledFp8File) {
    const std::string demo = findDemoModel();
    ASSERT_FALSE(demo.empty());
    const test::ScopedDir tmp("fp8-plan");
    const std::string copy = tmp.path + "/demo";
    fs::copy(demo, copy, fs::copy_options::recursive);
    const std::string file = "/transformer/diffusion_pytorch_model.safetensors";
    writeScaledE4m3(copy + file, test::openWeights(demo + file));

    const torch::Device cpu(torch::kCPU);
    auto run = [&](const std::string& dir, const std::string& plan) {
        auto p = Pipeline::load(dir, PrecisionPlan::parse(plan), cpu);
        return p->run(test::defaultRunOf(*p, 11, 4));
    };
    const RunRecord plain = run(demo, "transformer=bf16");
    const RunRecord planned = run(demo, "transformer=bf16,transformer=fp8-e4m3");
    const RunRecord fromFile = run(copy, "transformer=bf16");
    ASSERT_TRUE(planned.savedImage && fromFile.savedImage && plain.savedImage);
    EXPECT_EQ(planned.savedImage->rgb, fromFile.savedImage->rgb);
    ASSERT_EQ(planned.steps.size(), fromFile.steps.size());
    for (size_t i = 0; i < planned.steps.size(); ++i)
        EXPECT_EQ(planned.steps[i].latent.absMax, fromFile.steps[i].latent.absMax) << i;
    // And the rounding changed the run.
    EXPECT_NE(planned.savedImage->rgb, plain.savedImage->rgb);
    EXPECT_NE(planned.steps.back().latent.absMax, plain.steps.back().latent.absMax);
    EXPECT_NE(planned.effectivePlan.find("transformer=fp8-e4m3"), std::string::npos)
        << planned.effectivePlan;

    // The rule given to an open model reloads the weights it rounds: the same run as a fresh load.
    auto open = Pipeline::load(demo, PrecisionPlan::parse("transformer=bf16"), cpu);
    const auto reloaded =
        open->setPlan(PrecisionPlan::parse("transformer=bf16,transformer=fp8-e4m3"));
    EXPECT_NE(std::find(reloaded.begin(), reloaded.end(), "transformer"), reloaded.end());
    const RunRecord switched = open->run(test::defaultRunOf(*open, 11, 4));
    ASSERT_TRUE(switched.savedImage);
    EXPECT_EQ(switched.savedImage->rgb, planned.savedImage->rgb);
}

}  // namespace
