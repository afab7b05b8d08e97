// diffusers QwenImageTransformer2DModel (Qwen-Image's MMDiT): golden parity directly and through
// the family registry (whole and streamed), other configurations against the plain-PyTorch port,
// probe names, config / weight / input errors, reduced formats, Qwen-Image's real size on the
// meta device, and the fp16 overflow of the residual stream named where it happens while
// diffusers' clip keeps the output finite.
//
// tests/data/qwenimage was written by
//   /usr/bin/python3 bench/reference/qwenimage_reference.py case tests/data/qwenimage
// after `qwenimage_reference.py check tests/data/golden/qwenimage
// tests/data/golden/qwenimage_io.safetensors` reproduced the golden output (relative error 0).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "families/qwenimage/qwenimage_family.h"
#include "families/qwenimage/qwenimage_transformer.h"
#include "qwenimage_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

ModelCase goldenQwenimage() {
    return openCase("golden/qwenimage", "golden/qwenimage_io.safetensors");
}

double absMaxOf(ProbeContext& p, const std::string& name) {
    double m = -1;
    for (const auto& r : p.records())
        if (r.name == name) m = std::max(m, r.stats.absMax);
    return m;
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// The golden model at every probe level, its keys diffusers' own; 3 heads of 12 with rope
// (4, 4, 4), 3 layers, out_channels 5, odd packed sizes 5 x 3, a batch of 2 with two timesteps
// and masks (one with a hole); 1 head of 32 with rope (8, 12, 12), out_channels null, patch 1,
// two frames of 3 x 4: against the reference port.
HS_CASES(QwenImage, FamilyGolden,
         test::familyGolden("golden/qwenimage", Role::Denoiser, "transformer",
                            {"in.hidden_states", "in.encoder_hidden_states_mask", "in.img_shapes",
                             "in.timestep", "out.sample"}),
         test::GoldenCase("qwenimage/heads3_odd"), test::GoldenCase("qwenimage/head1_frames2"));

// Blocks converted one at a time, as for a model larger than memory: the same.
HS_CASES(QwenImage, FamilyStreaming, test::StreamingCase("golden/qwenimage", 2));

const std::string kBlockQwenimage = "transformer.transformer_blocks.1";

// At Layer level: img_in, txt_norm, txt_in, time_text_embed; per block 2 outputs + 8 layers;
// norm_out, proj_out.
HS_CASES(QwenImage, FamilyProbes,
         test::ProbeCase(
             "golden", goldenQwenimage,
             {test::ProbeExpectation(ProbeLevel::Op)
                  .at(ProbeLevel::Module, "", {kBlockQwenimage})
                  .at(ProbeLevel::Module, kBlockQwenimage, {"context"})
                  .at(ProbeLevel::Module, "transformer", {"proj_out"})
                  .at(ProbeLevel::Layer, "transformer",
                      {"img_in", "txt_norm", "txt_in", "time_text_embed", "norm_out"})
                  .at(ProbeLevel::Layer, kBlockQwenimage,
                      {"img_modulated", "txt_modulated", "attn", "attn.to_add_out", "attn_residual",
                       "context_attn_residual", "img_mlp", "txt_mlp"})
                  .at(ProbeLevel::Op, kBlockQwenimage,
                      {"img_mod.1", "txt_mod.0", "img_norm1", "txt_norm2", "img_modulated2",
                       "attn_gated", "txt_mlp_gated", "attn.norm_added_k", "attn.rope_q",
                       "attn.sdpa", "img_mlp.net.0"})
                  .at(ProbeLevel::Op, "transformer",
                      {"time_text_embed.time_proj", "time_text_embed.timestep_embedder.linear_2"}),
              test::ProbeExpectation(ProbeLevel::Layer).eachOnce().distinctNames(4 + 2 * 10 + 2)}));

HS_CASES(QwenImage, FamilyConfig,
         test::ConfigCase::ofFile<QwenImageConfig>(
             "golden", "golden/qwenimage/config.json",
             {test::setting("zero_cond_t", true), test::setting("use_additional_t_cond", true),
              test::setting("use_layer3d_rope", true), test::setting("axes_dims_rope", {4, 6, 8}),
              test::setting("axes_dims_rope", {8, 8}), test::setting("axes_dims_rope", {3, 7, 6}),
              test::setting("num_layers", 100000), test::setting("num_attention_heads", "2"),
              test::setting("attention_head_dim", 1 << 20), test::setting("patch_size", 0),
              test::setting("guidance_embeds", "yes")}));

HS_CASES(QwenImage, FamilyInputs,
         test::InputCase{
             "golden",
             goldenQwenimage,
             {test::inputSet("in.hidden_states", torch::zeros({1, 16, 64}),
                             {"in.hidden_states", "[B, frames * hp * wp, 16]"}),
              test::inputSet("in.encoder_hidden_states", torch::zeros({1, 10, 32}),
                             {"in.encoder_hidden_states", "[1, L_txt, 24]"}),
              test::inputSet("in.encoder_hidden_states_mask", torch::ones({1, 9}, torch::kInt64),
                             {"in.encoder_hidden_states_mask", "[1, 10]"}),
              test::inputSet("in.img_shapes", torch::tensor({{1, 4, 5}}, torch::kInt64),
                             {"in.img_shapes", "16 tokens"}),
              test::inputSet("in.img_shapes", torch::tensor({1, 4, 4}, torch::kInt64),
                             {"in.img_shapes", "[1, 3] or [1, 3]"}),
              test::inputSet("in.img_shapes", torch::tensor({{1.0, 4.5, 4.0}}),
                             {"in.img_shapes", "whole numbers"}),
              test::inputRemoved("in.img_shapes", {"missing input 'in.img_shapes'"}),
              test::inputSet("in.timestep", torch::zeros({3}), {"in.timestep", "[1] or [1]"}),
              {[](NamedTensors& in) {
                   in["in.encoder_hidden_states"] = torch::zeros({1, 4095, 24});
                   in["in.encoder_hidden_states_mask"] = torch::ones({1, 4095}, torch::kInt64);
               },
               {"in.encoder_hidden_states", "4096"}},
              test::inputSet("in.guidance", torch::ones({1}), {"in.guidance"}),
              // Batch 2 with two different image sizes: diffusers would use the first for both.
              {[](NamedTensors& in) {
                   in["in.hidden_states"] = torch::zeros({2, 16, 16});
                   in["in.encoder_hidden_states"] = torch::zeros({2, 10, 24});
                   in["in.encoder_hidden_states_mask"] = torch::ones({2, 10}, torch::kInt64);
                   in["in.img_shapes"] = torch::tensor({{1, 4, 4}, {1, 2, 8}}, torch::kInt64);
               },
               {"in.img_shapes", "different image sizes"}}}});

// ---- Qwen-Image's own ---------------------------------------------------------------------------

TEST(QwenImageConfig, ReadsGoldenConfig) {
    const auto j = readJson(dataPath("golden/qwenimage/config.json"));
    auto c = QwenImageConfig::fromJson(j);
    EXPECT_EQ(c.innerDim(), 32);
    EXPECT_EQ(c.outDim(), 16);  // 2 x 2 x 4
    EXPECT_EQ(c.axesDimsRope, (std::vector<int>{4, 6, 6}));
    auto k = j;
    k["out_channels"] = nullptr;  // null: in_channels
    EXPECT_EQ(QwenImageConfig::fromJson(k).outChannels, 16);
}

// The golden mask leaves 2 of 10 text tokens out: without it the output moves. A mask of ones is
// no mask; the padded tokens' values do not matter under the mask.
TEST(QwenImage, TheTextMaskLeavesThePaddedTokensOut) {
    const ModelCase g = goldenQwenimage();
    auto family = FamilyRegistry::global().require("QwenImageTransformer2DModel", "test");
    ProbeContext probes = contextFor("", ProbeLevel::Layer);
    auto c = loadComponent(*family, {"test", g.config, g.weights}, probes.policy(), "transformer");
    const auto whole = c->run(g.io, probes).at("out.sample");
    NamedTensors in = g.io;
    in.erase("in.encoder_hidden_states_mask");
    EXPECT_GT(relErr(c->run(in, probes).at("out.sample"), whole), 1e-3);
    auto noMask = c->run(in, probes).at("out.sample");
    in["in.encoder_hidden_states_mask"] = torch::ones({1, 10}, torch::kInt64);
    EXPECT_TRUE(torch::equal(c->run(in, probes).at("out.sample"), noMask));
    in = g.io;
    auto text = in.at("in.encoder_hidden_states").clone();
    text.narrow(1, 8, 2).fill_(7.0f);
    in["in.encoder_hidden_states"] = text;
    EXPECT_LE(relErr(c->run(in, probes).at("out.sample"), whole), 1e-6);
}

// diffusers casts the timestep (t / 1000) to the model's dtype before time_proj multiplies it by
// 1000: in bf16 the case's 0.3 becomes 0.30078125, a timestep of 300.78 instead of 300, which
// moves the output far more than the format's rounding does (rel err 0.22 against fp32). The
// comparison therefore runs at timesteps every format holds exactly.
TEST(QwenImage, ReducedPrecisionAgreesWithFp32) {
    ModelCase c = openCase("qwenimage/heads3_odd", "qwenimage/heads3_odd_io.safetensors");
    c.io["in.timestep"] = torch::tensor({0.5f, 0.75f});
    test::expectReducedPrecisionAgrees(
        c, {{"transformer=bf16", 2e-2},
            {"transformer=fp16", 3e-3},
            {"transformer=fp16,transformer.transformer_blocks.1=fp32", 3e-3}});
}

// Qwen-Image's released transformer config (60 blocks of 24 heads x 128, text width 3584,
// 64 packed channels) builds on the meta device (no memory) with its 20 B parameters.
TEST(QwenImage, RealConfigBuildsOnTheMetaDevice) {
    const nlohmann::json j = test::realQwenImageTransformerConfig();
    nn::MetaConstruction meta;
    QwenImageTransformer m(QwenImageConfig::fromJson(j));
    EXPECT_TRUE(m->proj_out->weight.is_meta());
    const int64_t n = parameterCount(*m);
    std::printf("  Qwen-Image transformer: %.3f B parameters\n", n / 1e9);
    EXPECT_GT(n, 20.0e9);
    EXPECT_LT(n, 20.6e9);
    EXPECT_EQ(m->proj_out->weight.size(0), 64);
}

TEST(QwenImage, RopeCentresTheImageAndPlacesTextAfterIt) {
    // One frame of 3 x 4: rows -2..0, columns -2..1; text from max(1, 2) = 2 on.
    auto rope = qwenImageRope({2, 2, 2}, {1, 3, 4}, 2, torch::kCPU);
    ASSERT_EQ(rope.cos.sizes(), (std::vector<int64_t>{2 + 12, 6}));
    // Each axis here has one frequency (1.0): the angle is the position itself.
    auto angle = [&](int64_t token, int axis) {
        return std::atan2(rope.sin[token][2 * axis].item<double>(),
                          rope.cos[token][2 * axis].item<double>());
    };
    EXPECT_NEAR(angle(0, 0), 2.0, 1e-6);       // text 0 at position 2 on every axis
    EXPECT_NEAR(angle(1, 2), 3.0, 1e-6);       // text 1 at 3
    EXPECT_NEAR(angle(2, 1), -2.0, 1e-6);      // image (0, 0, 0): row -2
    EXPECT_NEAR(angle(2, 2), -2.0, 1e-6);      // column -2
    EXPECT_NEAR(angle(2 + 11, 1), 0.0, 1e-6);  // image (0, 2, 3): row 0
    EXPECT_NEAR(angle(2 + 11, 2), 1.0, 1e-6);  // column 1
    EXPECT_EQ(rope.cos[0][0].item<float>(), rope.cos[0][1].item<float>());  // pairs share angles
}

HS_CASES(QwenImage, FamilyWeights,
         test::WeightCase{
             "golden",
             goldenQwenimage,
             {test::weightRemoved("transformer_blocks.1.attn.norm_added_k.weight"),
              test::weightSet("img_in.weight",
                              torch::zeros({32, 64})),  // a model with another packing
              test::weightSet("time_text_embed.addition_t_embedding.weight",
                              torch::zeros({2, 32})),  // Layered
              test::configSet("num_layers", 3,
                              {"transformer_blocks.2."})}});  // a block the file does not have

// Qwen-Image in fp16: the last block's gated MLP update pushes the image stream past 65504 while
// the MLP and its gate are finite. The block's Module point records the stream before diffusers'
// fp16 clip, so the overflow is named there, while the clip (as in diffusers) turns it into 65504
// and the output stays finite: the silent failure the studio exists to show. In fp32 nothing is
// clipped or overflows.
TEST(QwenImage, Fp16OverflowIsNamedAtTheBlockWhileTheClipKeepsTheOutputFinite) {
    ModelCase g = goldenQwenimage();
    const std::string block = "transformer.transformer_blocks.1";
    ProbeContext p0 = contextFor("", ProbeLevel::Op);
    auto m0 = loadQwenImageTransformer(g.config, g.weights, p0.policy());
    runQwenImageTransformer(m0, g.io, p0);
    // Scale the MLP's output layer and the rows of img_mod.1 that make its gate (chunk 6 of 6)
    // by f each, so the gated update grows by f^2 to ~2e5 while every weight, the MLP output
    // and the gate stay well inside fp16. (The weights are views of a read-only mapped file:
    // scale copies.)
    const double f = std::sqrt(2e5 / absMaxOf(p0, block + ".img_mlp_gated"));
    for (const char* k :
         {"transformer_blocks.1.img_mlp.net.2.weight", "transformer_blocks.1.img_mlp.net.2.bias"})
        g.weights[k] = g.weights.at(k) * f;
    for (const char* k :
         {"transformer_blocks.1.img_mod.1.weight", "transformer_blocks.1.img_mod.1.bias"}) {
        auto w = g.weights.at(k).clone();
        w.narrow(0, 5 * 32, 32).mul_(f);  // gate_mlp rows of [6 x 32, ...]
        g.weights[k] = w;
    }

    ProbeContext p32 = contextFor("", ProbeLevel::Op);
    auto m32 = loadQwenImageTransformer(g.config, g.weights, p32.policy());
    auto o32 = runQwenImageTransformer(m32, g.io, p32).at("out.sample");
    EXPECT_TRUE(torch::isfinite(o32).all().item<bool>());
    EXPECT_FALSE(p32.firstNonFinite().has_value());
    std::printf("  fp32: |img_mod.1| %.4g, |img_mlp| %.4g, |img_mlp_gated| %.4g, |block| %.4g\n",
                absMaxOf(p32, block + ".img_mod.1"), absMaxOf(p32, block + ".img_mlp"),
                absMaxOf(p32, block + ".img_mlp_gated"), absMaxOf(p32, block));
    ASSERT_LT(absMaxOf(p32, block + ".img_mod.1"), 6e4);
    ASSERT_LT(absMaxOf(p32, block + ".img_mlp"), 6e4);
    ASSERT_GT(absMaxOf(p32, block), 65520.0);  // rounds to Inf in fp16

    const NamedTensors in = test::onlyInputs(g.io);
    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) { return test::loadModel(g, p); }, in, "transformer=fp16", block},
        {ProbeLevel::Module, ProbeLevel::Layer, ProbeLevel::Op},
        [&](ProbeLevel level, const FirstNonFinite& first, Component& m16, ProbeContext& p16) {
            EXPECT_TRUE(torch::isfinite(m16.run(in, p16).at("out.sample")).all().item<bool>())
                << "the fp16 clip keeps it finite";
            EXPECT_EQ(first.at.name, level == ProbeLevel::Op ? block + ".img_mlp_gated" : block);
        });
}

// The failure inside a block: the image stream entering block 0 is near 65504 and the attention's
// gated update, though finite, carries the residual sum past it. Every layer's own output is
// finite in fp16; the sum is its own probe point (Layer level), so it is named at every level
// that records it, and the block at Module level. Here the stream is Inf before the clip, and the
// next LayerNorm makes NaN of it, which no clip can hide.
TEST(QwenImage, Fp16ResidualOverflowIsNamedAtTheSum) {
    const ModelCase g = goldenQwenimage();
    const std::string block = "transformer.transformer_blocks.0";
    ProbeContext p0 = contextFor("", ProbeLevel::Op);
    auto m0 = loadQwenImageTransformer(g.config, g.weights, p0.policy());
    runQwenImageTransformer(m0, g.io, p0);
    // img_in scaled so the stream reaches 6.5e4, the attention's to_out.0 so that it and its gated
    // output stay below 6e4 (layer norms make everything between them scale-free). Of the two
    // signs of the attention's scale, the one whose residual sum grows more is kept.
    const double in = 6.5e4 / absMaxOf(p0, "transformer.img_in");
    const double attn =
        6e4 / std::max(absMaxOf(p0, block + ".attn"), absMaxOf(p0, block + ".attn_gated"));
    auto scaled = [&](double sign) {
        WeightMap w = g.weights;
        for (const char* k : {"img_in.weight", "img_in.bias"}) w[k] = w.at(k) * in;
        for (const char* k : {"transformer_blocks.0.attn.to_out.0.weight",
                              "transformer_blocks.0.attn.to_out.0.bias"})
            w[k] = w.at(k) * (sign * attn);
        return w;
    };
    auto fp32Run = [&](const WeightMap& w) {
        auto p = std::make_unique<ProbeContext>(contextFor("", ProbeLevel::Op));
        auto m = loadQwenImageTransformer(g.config, w, p->policy());
        runQwenImageTransformer(m, g.io, *p);
        return p;
    };
    auto plus = fp32Run(scaled(1)), minus = fp32Run(scaled(-1));
    const bool usePlus =
        absMaxOf(*plus, block + ".attn_residual") >= absMaxOf(*minus, block + ".attn_residual");
    const WeightMap w = scaled(usePlus ? 1 : -1);
    ProbeContext& p32 = usePlus ? *plus : *minus;
    std::printf("  fp32: |img_in| %.4g, |attn| %.4g, |attn_gated| %.4g, |attn_residual| %.4g\n",
                absMaxOf(p32, "transformer.img_in"), absMaxOf(p32, block + ".attn"),
                absMaxOf(p32, block + ".attn_gated"), absMaxOf(p32, block + ".attn_residual"));
    ASSERT_FALSE(p32.firstNonFinite().has_value());
    ASSERT_LT(absMaxOf(p32, "transformer.img_in"), kFp16Max);
    ASSERT_LT(absMaxOf(p32, block + ".attn"), kFp16Max);
    ASSERT_LT(absMaxOf(p32, block + ".attn_gated"), kFp16Max);
    ASSERT_GT(absMaxOf(p32, block + ".attn_residual"), 65520.0);  // rounds to Inf in fp16

    ModelCase scaledCase = g;
    scaledCase.weights = w;
    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) { return test::loadModel(scaledCase, p); }, test::onlyInputs(g.io),
         "transformer=fp16", block},
        {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module},
        [&](ProbeLevel level, const FirstNonFinite& first, Component&, ProbeContext&) {
            EXPECT_EQ(first.at.name,
                      level == ProbeLevel::Module ? block : block + ".attn_residual");
        });
}

}  // namespace
}  // namespace hs
