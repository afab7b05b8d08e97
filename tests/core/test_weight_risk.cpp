// The fp16 check from weights (diagnosis/weight_risk.h, inspect/weight_stats.h): before any run,
// per module, "fp16 safe / at risk / will overflow" from the stored weights; a clean run's headroom
// overrides the guess where it measured.
#include <gtest/gtest.h>

#include <filesystem>

#include "diagnosis/headroom.h"
#include "diagnosis/weight_risk.h"
#include "inspect/weight_check.h"
#include "inspect/weight_stats.h"
#include "io/safetensors.h"
#include "pipeline/pipeline.h"
#include "qwenimage_fixture.h"
#include "runtime/demo_location.h"
#include "test_util.h"

using namespace hs;
namespace fs = std::filesystem;

namespace {

const ModuleRisk& moduleOf(const WeightRiskReport& r, const std::string& name) {
    const ModuleRisk* m = r.module(name);
    if (!m) throw std::runtime_error("no module " + name + " in the report");
    return *m;
}

// The transformer's stored bf16 weight `key` of `shape`: its largest |w| `maxAbs`, its RMS `rms`.
WeightStats bf16TransformerWeight(const std::string& key, std::vector<int64_t> shape, double maxAbs,
                                  double rms) {
    WeightStats w;
    w.component = "transformer";
    w.key = key;
    w.dtype = "BF16";
    w.shape = std::move(shape);
    w.maxAbs = maxAbs;
    w.rms = rms;
    return w;
}

}  // namespace

TEST(WeightRisk, TensorStatsAreMaxAbsAndRmsInTheStoredDtype) {
    const auto t = torch::tensor({3.0f, -4.0f, 0.0f, 0.0f}).to(torch::kBFloat16);
    const WeightStats s = tensorWeightStats(t);
    EXPECT_DOUBLE_EQ(s.maxAbs, 4.0);
    EXPECT_DOUBLE_EQ(s.rms, 2.5);  // sqrt((9 + 16) / 4)
    EXPECT_EQ(s.nonFinite, 0);
    const WeightStats inf =
        tensorWeightStats(torch::tensor({1.0f, std::numeric_limits<float>::infinity()}));
    EXPECT_EQ(inf.nonFinite, 1);
    EXPECT_DOUBLE_EQ(inf.maxAbs, 1.0);
}

TEST(WeightRisk, AWeightPastFp16RangeWillOverflowAndNamesItsModule) {
    const std::string dir = test::tempDir("weight_risk_file");
    auto small = [](std::vector<int64_t> shape) {
        return torch::randn(shape, torch::TensorOptions().dtype(torch::kFloat)) * 0.02;
    };
    torch::Tensor big = small({8, 8});
    big[3][5] = 7.1e4f;  // cannot be stored in fp16; 71168 in bf16
    const std::string path = dir + "/tiny.safetensors";
    writeSafetensors(path,
                     {{"transformer_blocks.0.ff.net.2.weight", small({8, 8}).to(torch::kBFloat16)},
                      {"transformer_blocks.1.ff.net.2.weight", big.to(torch::kBFloat16)},
                      {"transformer_blocks.1.ff.net.2.bias", small({8})},
                      {"norm_out.weight", torch::ones({8})}});
    const WeightRiskReport r = predictFromWeights(path);
    const ModuleRisk& bad = moduleOf(r, "tiny.transformer_blocks.1");
    EXPECT_EQ(bad.risk, Fp16Risk::WillOverflow) << bad.reason;
    EXPECT_NE(bad.reason.find("max |w| 7.12e+04 > 65504"), std::string::npos) << bad.reason;
    EXPECT_NE(bad.reason.find("stored in BF16"), std::string::npos) << bad.reason;
    EXPECT_EQ(moduleOf(r, "tiny.transformer_blocks.0").risk, Fp16Risk::Safe);
    ASSERT_NE(r.component("tiny"), nullptr);
    EXPECT_EQ(r.component("tiny")->risk, Fp16Risk::WillOverflow);
    EXPECT_EQ(r.riskiest(1).at(0).module, "tiny.transformer_blocks.1");
    fs::remove_all(dir);
}

TEST(WeightRisk, LargeNormGainsAreAtRisk) {
    WeightStats g = bf16TransformerWeight("transformer_blocks.2.norm2.weight", {64}, 900, 300);
    const WeightRiskReport r = assessWeights({g});
    const ModuleRisk& m = moduleOf(r, "transformer.transformer_blocks.2");
    EXPECT_EQ(m.risk, Fp16Risk::AtRisk) << m.reason;
    EXPECT_NE(m.reason.find("norm gains up to 900"), std::string::npos) << m.reason;
    g.maxAbs = 1.2;
    g.rms = 1.0;
    EXPECT_EQ(assessWeights({g}).components.at(0).risk, Fp16Risk::Safe);
}

TEST(WeightRisk, ScaledQwenImageIsFlaggedInItsBlocksAndItsUnscaledTwinIsSafe) {
    const std::string root = test::tempDir("weight_risk_qwen");
    const auto plain = test::writeTinyQwenImage(root + "/plain", 1.0, 16);
    const auto scaled = test::writeTinyQwenImage(root + "/scaled", 1024.0, 16);
    const WeightRiskReport a = predictFromWeights(plain.folder);
    const WeightRiskReport b = predictFromWeights(scaled.folder);
    std::printf("  plain:  %s\n  scaled: %s\n", componentLine(a).c_str(), componentLine(b).c_str());
    ASSERT_NE(a.component("transformer"), nullptr);
    EXPECT_EQ(a.component("transformer")->risk, Fp16Risk::Safe)
        << a.component("transformer")->reason;
    for (const auto& m : a.modules)
        EXPECT_EQ(m.risk, Fp16Risk::Safe) << m.module << ": " << m.reason;
    ASSERT_NE(b.component("transformer"), nullptr);
    EXPECT_NE(b.component("transformer")->risk, Fp16Risk::Safe);
    const ModuleRisk& block = moduleOf(b, "transformer.transformer_blocks.0");
    EXPECT_NE(block.risk, Fp16Risk::Safe) << block.reason;
    EXPECT_NE(block.reason.find("linear gain"), std::string::npos) << block.reason;
    // The scale touches only the DiT: the other components read the same.
    EXPECT_EQ(b.component("vae")->risk, a.component("vae")->risk);
    EXPECT_EQ(b.component("text_encoder")->risk, a.component("text_encoder")->risk);
    fs::remove_all(root);
}

TEST(WeightRisk, MeasuredHeadroomOverridesTheWeightGuess) {
    WeightStats w =
        bf16TransformerWeight("transformer_blocks.0.ff.net.2.weight", {16, 16}, 0.1, 0.05);
    WeightRiskReport r = assessWeights({w});
    ASSERT_EQ(r.modules.at(0).risk, Fp16Risk::Safe);
    HeadroomReport h;
    PointHeadroom p;
    p.name = "transformer.transformer_blocks.0.ff";
    p.block = "transformer.transformer_blocks.0";
    p.component = "transformer";
    p.records = 2;
    p.maxAbs = 1.5e5;
    h.points.push_back(p);
    p.name = "vae.decoder.conv_in";
    p.block = "vae.decoder.conv_in";
    p.component = "vae";
    p.maxAbs = 2.0e4;  // within a factor of 4 of 65504
    h.points.push_back(p);
    applyHeadroom(r, h);
    const ModuleRisk& m = moduleOf(r, "transformer.transformer_blocks.0");
    EXPECT_TRUE(m.measured);
    EXPECT_EQ(m.risk, Fp16Risk::WillOverflow) << m.reason;
    EXPECT_NE(m.reason.find("clean run peaked at 1.5e+05"), std::string::npos) << m.reason;
    EXPECT_EQ(r.component("transformer")->risk, Fp16Risk::WillOverflow);
    EXPECT_EQ(moduleOf(r, "vae.decoder.conv_in").risk, Fp16Risk::AtRisk);
    // And the other way: a measured small peak clears a module the weights flagged.
    w.shape = {192, 192};
    w.maxAbs = 600;
    w.rms = 200;  // gain 200 * sqrt(192) = 2.8e3, peak ~2.2e4
    WeightRiskReport flagged = assessWeights({w});
    ASSERT_NE(flagged.modules.at(0).risk, Fp16Risk::Safe);
    h.points.resize(1);
    h.points[0].maxAbs = 100;
    applyHeadroom(flagged, h);
    EXPECT_EQ(flagged.component("transformer")->risk, Fp16Risk::Safe);
}

// The shipped demo's transformer overflows in fp16 from step 0. Its residual writers' weights
// (RMS ~100-200, fan-in 192-960) give estimated peaks of ~2-3e4: the weights alone say "at
// risk", not "will overflow" (no weight exceeds 65504); a 2-step bf16 run's headroom settles it.
TEST(WeightRisk, ShippedDemoTransformerAtRiskFromWeightsAndWillOverflowFromAShortRun) {
    const std::string demo = findDemoModel();
    ASSERT_FALSE(demo.empty());
    WeightRiskReport r = predictFromWeights(demo);
    std::printf("  demo from weights: %s\n", componentLine(r).c_str());
    ASSERT_NE(r.component("transformer"), nullptr);
    EXPECT_EQ(r.component("transformer")->risk, Fp16Risk::AtRisk)
        << r.component("transformer")->reason;
    EXPECT_EQ(r.component("text_encoder")->risk, Fp16Risk::Safe)
        << r.component("text_encoder")->reason;
    auto p = Pipeline::load(demo, PrecisionPlan(), torch::Device(torch::kCPU));
    RunConfig cfg;
    cfg.prompt = "a large purple square in the centre, green background";
    cfg.seed = 7;
    cfg.steps = 2;
    const RunRecord bf16 = p->run(cfg);
    applyHeadroom(r, analyzeHeadroom(bf16));
    std::printf("  with a 2-step bf16 run: %s\n", componentLine(r).c_str());
    EXPECT_EQ(r.component("transformer")->risk, Fp16Risk::WillOverflow);
    EXPECT_EQ(r.component("text_encoder")->risk, Fp16Risk::Safe);
}

TEST(WeightRisk, CliInspectPrintsTheVerdictsOfTheDemo) {
    int status = -1;
    const std::string out = test::runCli("inspect " + findDemoModel(), status, true);
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find("fp16 check from weights"), std::string::npos) << out;
    EXPECT_NE(out.find("transformer: at risk"), std::string::npos) << out;
    EXPECT_NE(out.find("riskiest modules"), std::string::npos) << out;
    const std::string js = test::runCli("inspect --json " + findDemoModel(), status, true);
    const auto j = nlohmann::json::parse(js);
    ASSERT_TRUE(j.contains("fp16_from_weights")) << js.substr(0, 400);
    EXPECT_EQ(j["fp16_from_weights"]["riskiest"].size(), 5u);
    EXPECT_EQ(j["fp16_from_weights"]["components"].size(), 3u);
}

TEST(WeightRisk, CliGeneratePrintsOneLineOfVerdictsAtLoad) {
    const std::string dir = test::tempDir("weight_risk_generate");
    int status = -1;
    const std::string out =
        test::runCli("generate --steps 2 --out " + dir + "/a.png --prompt 'a red circle'", status);
    EXPECT_EQ(status, 0) << out;
    const auto at = out.find("fp16 check from weights (");
    ASSERT_NE(at, std::string::npos) << out;
    const std::string line = out.substr(at, out.find('\n', at) - at);
    EXPECT_NE(line.find("text_encoder fp16 safe"), std::string::npos) << line;
    EXPECT_NE(line.find("transformer at risk"), std::string::npos) << line;
    // The studio's log renders the same check from its message, piece by piece.
    const MessageText m = loadTimeWeightCheckMessage(findDemoModel());
    const std::string english = englishText(m);
    EXPECT_EQ(english.substr(english.find("): ")), line.substr(line.find("): ")));
    const std::string ids = renderText(
        m, "not a message", [](const MessageTemplate& t) { return std::string(t.id) + " "; });
    EXPECT_EQ(ids.rfind("weight_check.done weight_check.safe weight_check.separator", 0), 0u)
        << ids;
    EXPECT_NE(ids.find("weight_check.at_risk weight_check."), std::string::npos) << ids;
    fs::remove_all(dir);
}
