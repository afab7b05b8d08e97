// diffusers CosmosTransformer3DModel (Cosmos-Predict2 text to image): golden parity directly and
// through the family registry, other configurations against the plain-PyTorch port, probe names,
// config / weight / input errors, and the fp16 overflow of the residual stream named where it
// happens.
//
// tests/data/cosmos was written by
//   /usr/bin/python3 bench/reference/cosmos_reference.py case tests/data/cosmos
// after `cosmos_reference.py check` reproduced the golden output (relative error 0).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "anima_fixture.h"
#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "families/cosmos/cosmos_family.h"
#include "families/cosmos/cosmos_transformer.h"
#include "test_util.h"

namespace hs {
namespace {

ModelCase goldenCosmos() {
    return openCase("golden/cosmos", "golden/cosmos_io.safetensors");
}

ModelCase otherCaseCosmos(const std::string& name) {
    return openCase("cosmos/" + name, "cosmos/" + name + "_io.safetensors");
}

// ---- the suites every family runs (family_suites.h) ---------------------------------------------

// The golden model at every probe level (probes change nothing), its keys diffusers' own; other
// head counts and widths, MLP ratio, LoRA width, rope_scale, patch (2, 2, 2) over two frames, a
// batch of 2 with two timesteps, a mask resized from 4 x 6, no mask channel, against the
// reference port.
HS_CASES(Cosmos, FamilyGolden,
         test::familyGolden("golden/cosmos", Role::Denoiser, "transformer", {"in.padding_mask"}),
         test::GoldenCase("cosmos/heads3_t2"), test::GoldenCase("cosmos/nomask_p1"));

// Blocks converted one at a time, as for a model larger than memory: the same.
HS_CASES(Cosmos, FamilyStreaming, test::StreamingCase("golden/cosmos", 2));

const std::string kBlockCosmos = "transformer.transformer_blocks.1";

// No RoPE on the text; at Layer level: the embeddings, 2 blocks, norm_out + proj_out.
HS_CASES(Cosmos, FamilyProbes,
         test::ProbeCase(
             "golden", goldenCosmos,
             {test::ProbeExpectation(ProbeLevel::Op)
                  .at(ProbeLevel::Module, "", {kBlockCosmos})
                  .at(ProbeLevel::Module, "transformer", {"proj_out"})
                  .at(ProbeLevel::Layer, "transformer",
                      {"patch_embed", "time_embed.t_embedder", "time_embed.norm", "norm_out"})
                  .at(ProbeLevel::Layer, kBlockCosmos,
                      {"norm1", "norm3", "attn1", "attn2", "ff", "attn1_residual",
                       "attn2_residual"})
                  .at(ProbeLevel::Op, kBlockCosmos,
                      {"attn1_gated", "ff_gated", "attn1.rope_q", "attn2.norm_k", "attn2.sdpa",
                       "norm2.linear_1", "norm2.temb_sum", "ff.net.0"})
                  .at(ProbeLevel::Op, "transformer", {"time_embed.time_proj"})
                  .hasNot({"transformer.transformer_blocks.1.attn2.rope_q"}),
              test::ProbeExpectation(ProbeLevel::Layer).eachOnce().distinctNames(3 + 2 * 9 + 2)}));

HS_CASES(Cosmos, FamilyConfig,
         test::ConfigCase::ofFile<CosmosConfig>(
             "golden", "golden/cosmos/config.json",
             {test::setting("extra_pos_embed_type", "learnable"),
              test::removing("extra_pos_embed_type", "extra_pos_embed_type"),
              test::setting("attention_head_dim", 10), test::setting("num_layers", 100000),
              test::setting("rope_scale", {1.0, 4.0}), test::setting("patch_size", {1, 2}),
              test::setting("mlp_ratio", -1.0), test::setting("use_crossattn_projection", true),
              test::setting("img_context_dim_in", 1152),
              test::setting("controlnet_block_every_n", 7),
              test::setting("num_attention_heads", "2")}));

HS_CASES(Cosmos, FamilyInputs,
         test::InputCase{
             "golden",
             goldenCosmos,
             {test::inputSet("in.hidden_states", torch::zeros({1, 4, 8, 8}),
                             {"in.hidden_states", "[B, 4, T, H, W]"}),
              test::inputSet("in.hidden_states", torch::zeros({1, 4, 1, 7, 8}),
                             {"in.hidden_states", "H a multiple of 2"}),
              test::inputSet("in.hidden_states",
                             torch::zeros({1, 4, 1, 8, 18}),  // 9 patches > 16 / 2
                             {"in.hidden_states", "at most 16"}),
              test::inputSet("in.encoder_hidden_states", torch::zeros({1, 12, 32}),
                             {"in.encoder_hidden_states", "[1, L_txt, 24]"}),
              test::inputSet("in.timestep", torch::zeros({3}), {"in.timestep", "[1] or [1]"}),
              test::inputRemoved("in.timestep", {"missing input 'in.timestep'"}),
              test::inputSet("in.padding_mask", torch::zeros({1, 8, 8}),
                             {"in.padding_mask", "[1, 1, h, w]"}),
              test::inputSet("in.fps", torch::zeros({1}), {"in.fps"})}});

// ---- Cosmos's own -------------------------------------------------------------------------------

TEST(CosmosConfig, ReadsGoldenConfig) {
    auto c = CosmosConfig::fromJson(readJson(dataPath("golden/cosmos/config.json")));
    EXPECT_EQ(c.innerDim(), 32);
    EXPECT_EQ(c.ffDim(), 64);
    EXPECT_EQ(c.patchInDim(), 20);  // (4 + mask) * 1 * 2 * 2
    EXPECT_EQ(c.maxPatchedPositions(), 8);
    EXPECT_EQ(c.ropeScale[1], 4.0);
}

// A zero mask is what the pipelines pass; leaving it out means the same. A mask that is not all
// zero reaches the output (the golden one is zero).
TEST(Cosmos, ThePaddingMaskIsOptionalAndReachesTheOutput) {
    const ModelCase g = goldenCosmos();
    auto family = FamilyRegistry::global().require("CosmosTransformer3DModel", "test");
    ProbeContext probes = contextFor("", ProbeLevel::Layer);
    auto c = loadComponent(*family, {"test", g.config, g.weights}, probes.policy(), "transformer");
    NamedTensors in = g.io;
    in["in.padding_mask"] = torch::zeros({1, 1, 8, 8});
    auto zero = c->run(in, probes).at("out.sample");
    in.erase("in.padding_mask");
    EXPECT_TRUE(torch::equal(c->run(in, probes).at("out.sample"), zero));
    in["in.padding_mask"] = (torch::arange(16).reshape({1, 1, 4, 4}) % 3 == 0).to(torch::kFloat);
    EXPECT_GT(relErr(c->run(in, probes).at("out.sample"), zero), 1e-3);
}

TEST(Cosmos, ReducedPrecisionAgreesWithFp32) {
    const ModelCase c = otherCaseCosmos("heads3_t2");
    test::expectReducedPrecisionAgrees(
        c, {{"transformer=bf16", 5e-2},
            {"transformer=fp16", 1e-2},
            {"transformer=fp16,transformer.transformer_blocks.1=fp32", 1e-2}});
}

// Cosmos-Predict2's released configs (2B and 14B text to image) build on the meta device (no
// memory) with the parameter counts their names give, and the real head width splits RoPE into
// t 44, h 42, w 42.
TEST(Cosmos, RealConfigsBuildOnTheMetaDevice) {
    nlohmann::json j = test::realCosmosPredict2Config();
    auto count = [](const nlohmann::json& config) {
        nn::MetaConstruction meta;
        CosmosTransformer m(CosmosConfig::fromJson(config));
        EXPECT_TRUE(m->proj_out->weight.is_meta());
        return parameterCount(*m);
    };
    const int64_t n2b = count(j);
    j["num_attention_heads"] = 40;
    j["num_layers"] = 36;
    const int64_t n14b = count(j);
    std::printf("  Cosmos-Predict2 2B: %.3f B parameters, 14B: %.3f B\n", n2b / 1e9, n14b / 1e9);
    EXPECT_GT(n2b, 1.9e9);
    EXPECT_LT(n2b, 2.1e9);
    EXPECT_GT(n14b, 13.5e9);
    EXPECT_LT(n14b, 14.5e9);
    auto c = CosmosConfig::fromJson(j);
    auto rope = cosmosRope(c, 1, 2, 3, torch::kCPU);
    ASSERT_EQ(rope.cos.sizes(), (std::vector<int64_t>{6, 128}));
    // Token (t 0, h 1, w 2): the t part (first 22 of each half) is at position 0, so cos 1.
    EXPECT_EQ(rope.cos[5].narrow(0, 0, 22).min().item<float>(), 1.f);
    EXPECT_LT(rope.cos[5].narrow(0, 22, 21).min().item<float>(), 1.f);
}

HS_CASES(Cosmos, FamilyWeights,
         test::WeightCase{
             "golden",
             goldenCosmos,
             {test::weightRemoved("transformer_blocks.1.attn2.norm_k.weight"),
              test::weightSet("patch_embed.proj.weight",
                              torch::zeros({32, 16})),  // a model without the mask channel
              test::weightSet("learnable_pos_embed.pos_emb_t", torch::zeros({4, 32}))}});

// The real failure (bf16-trained Cosmos / Anima run in fp16): the residual stream passes 65504
// while every layer's own output is still finite. The sum is its own probe point, so it is named
// at every probe level that records it, and the block at Module level.
TEST(Cosmos, Fp16ResidualOverflowIsNamed) {
    // Two samples of 48 tokens, 72 channels: enough elements for a same-signed update.
    ModelCase g = otherCaseCosmos("heads3_t2");
    const std::string block = "transformer.transformer_blocks.0";
    auto absMax = [](ProbeContext& p, const std::string& name) {
        double m = -1;
        for (const auto& r : p.records())
            if (r.name == name) m = r.stats.absMax;
        return m;
    };
    // Scale the stream entering block 0 to 6.5e4, and its self-attention so that the attention
    // and its gated output stay below 6e4: layer norms make everything between them scale-free,
    // so only these grow, each still finite in fp16. Of the two signs of the attention's scale,
    // the one whose residual sum grows more is kept: the sum then passes 65504.
    ProbeContext p0 = contextFor("", ProbeLevel::Op);
    auto m0 = loadCosmosTransformer(g.config, g.weights, p0.policy());
    runCosmosTransformer(m0, g.io, p0);
    // (The weights are views of a read-only mapped file: scale copies.)
    const WeightMap original = g.weights;
    auto scaled = [&](double attnSign) {
        WeightMap w = original;
        w["patch_embed.proj.weight"] =
            w["patch_embed.proj.weight"] * 6.5e4 / absMax(p0, "transformer.patch_embed");
        const std::string key = "transformer_blocks.0.attn1.to_out.0.weight";
        w[key] = w[key] * attnSign * 6e4 /
                 std::max(absMax(p0, block + ".attn1"), absMax(p0, block + ".attn1_gated"));
        return w;
    };
    auto fp32Run = [&](const WeightMap& w) {
        auto p = std::make_unique<ProbeContext>(contextFor("", ProbeLevel::Op));
        auto m = loadCosmosTransformer(g.config, w, p->policy());
        EXPECT_TRUE(
            torch::isfinite(runCosmosTransformer(m, g.io, *p).at("out.sample")).all().item<bool>());
        return p;
    };
    auto plus = fp32Run(scaled(1)), minus = fp32Run(scaled(-1));
    const bool usePlus =
        absMax(*plus, block + ".attn1_residual") >= absMax(*minus, block + ".attn1_residual");
    g.weights = scaled(usePlus ? 1 : -1);
    ProbeContext& p32 = usePlus ? *plus : *minus;
    const double stream = absMax(p32, "transformer.patch_embed"),
                 attn = absMax(p32, block + ".attn1"), gated = absMax(p32, block + ".attn1_gated"),
                 sum = absMax(p32, block + ".attn1_residual");
    std::printf(
        "  fp32: |patch_embed| %.4g, |attn1| %.4g, |attn1_gated| %.4g, |attn1_residual| "
        "%.4g\n",
        stream, attn, gated, sum);
    ASSERT_LT(stream, kFp16Max);
    ASSERT_LT(attn, kFp16Max);
    ASSERT_LT(gated, kFp16Max);
    ASSERT_GT(sum, 65520.0);  // rounds to Inf in fp16

    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) { return test::loadModel(g, p); }, test::onlyInputs(g.io),
         "transformer=fp16", block},
        {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module},
        [&](ProbeLevel level, const FirstNonFinite& first, Component&, ProbeContext&) {
            EXPECT_EQ(first.at.name,
                      level == ProbeLevel::Module ? block : block + ".attn1_residual");
        });
}

}  // namespace
}  // namespace hs
