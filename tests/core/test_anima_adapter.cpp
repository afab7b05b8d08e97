// diffusers AnimaTextConditioner (Anima's LLM adapter): golden parity directly and through the
// family registry, another configuration against the plain-PyTorch port (layer norms, no
// self-attention, no in_proj, padding to min_sequence_length, masks over a batch of 2), probe
// names, config / weight / input errors, and an fp16 overflow named inside the block.
//
// tests/data/cosmos/anima_ln* was written by
//   /usr/bin/python3 bench/reference/cosmos_reference.py anima-case tests/data/cosmos
// after `cosmos_reference.py anima-check` reproduced the golden output (relative error 2e-7).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "families/anima/anima_family.h"
#include "test_util.h"

namespace hs {
namespace {

ModelCase goldenAnimaAdapter() {
    return openCase("golden/anima_adapter", "golden/anima_adapter_io.safetensors");
}
ModelCase layerNormCase() {
    return openCase("cosmos/anima_ln", "cosmos/anima_ln_io.safetensors");
}

double compareAnimaAdapter(const NamedTensors& out, const NamedTensors& io,
                           const std::string& label) {
    return test::compareOutput(out, io, "out.text_embeds", "anima adapter " + label);
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// The golden model at every probe level, its keys diffusers' own.
HS_CASES(AnimaAdapter, FamilyGolden,
         test::familyGolden("golden/anima_adapter", Role::Adapter, "text_conditioner"));

const std::string kBlockAnimaAdapter = "text_conditioner.blocks.1";

// At Layer level: embed, in_proj, 2 blocks, out_proj, norm.
HS_CASES(AnimaAdapter, FamilyProbes,
         test::ProbeCase(
             "golden", goldenAnimaAdapter,
             {test::ProbeExpectation(ProbeLevel::Op)
                  .at(ProbeLevel::Module, "", {kBlockAnimaAdapter})
                  .at(ProbeLevel::Module, "text_conditioner", {"norm"})
                  .at(ProbeLevel::Layer, "text_conditioner", {"embed", "in_proj", "out_proj"})
                  .at(ProbeLevel::Layer, kBlockAnimaAdapter,
                      {"norm_self_attn", "self_attn", "self_attn_residual", "cross_attn",
                       "cross_attn_residual", "mlp"})
                  .at(ProbeLevel::Op, kBlockAnimaAdapter,
                      {"mlp.1", "cross_attn.rope_k", "self_attn.q_norm"})
                  .at(ProbeLevel::Op, "text_conditioner", {"masked"}),
              test::ProbeExpectation(ProbeLevel::Layer).eachOnce().distinctNames(2 + 2 * 9 + 2)}));

HS_CASES(AnimaAdapter, FamilyConfig,
         test::ConfigCase::ofFile<AnimaAdapterConfig>(
             "golden", "golden/anima_adapter/config.json",
             {test::setting("num_attention_heads", 3, "model_dim"),
              test::setting("num_attention_heads", 32, "even head width"),  // heads of width 1
              test::setting("mlp_ratio", 0.0), test::setting("target_vocab_size", 1 << 30),
              test::setting("use_layer_norm", "no"), test::setting("min_sequence_length", -1)}));

HS_CASES(AnimaAdapter, FamilyInputs,
         test::InputCase{
             "golden",
             goldenAnimaAdapter,
             {test::inputSet("in.source_hidden_states", torch::zeros({1, 7, 32}),
                             {"in.source_hidden_states", "[B, S, 24]"}),
              test::inputSet("in.target_input_ids", torch::full({1, 10}, 100, torch::kInt64),
                             {"in.target_input_ids", "0..99"}),
              test::inputSet("in.target_input_ids", torch::zeros({1, 10}),
                             {"in.target_input_ids", "integer"}),
              test::inputSet("in.source_attention_mask", torch::ones({1, 6}, torch::kInt64),
                             {"in.source_attention_mask", "[1, 7]"}),
              test::inputRemoved("in.target_input_ids", {"missing input 'in.target_input_ids'"}),
              test::inputSet("in.input_ids", torch::zeros({1, 10}, torch::kInt64),
                             {"in.input_ids"})}});

// ---- the adapter's own --------------------------------------------------------------------------

TEST(AnimaAdapterConfig, ReadsGoldenConfig) {
    auto c = AnimaAdapterConfig::fromJson(readJson(dataPath("golden/anima_adapter/config.json")));
    EXPECT_EQ(c.headDim(), 8);
    EXPECT_EQ(c.mlpDim(), 64);
    EXPECT_TRUE(c.hasInProj());
    EXPECT_EQ(c.minSequenceLength, 8);
}

// The target mask zeroes the padded tokens (the last two of ten). Without masks every token
// attends everywhere: a different, unmasked result.
TEST(AnimaAdapter, TheMasksZeroThePaddedTokens) {
    const ModelCase g = goldenAnimaAdapter();
    auto family = FamilyRegistry::global().require("AnimaTextConditioner", "test");
    ProbeContext probes = contextFor("", ProbeLevel::Layer);
    auto c =
        loadComponent(*family, {"test", g.config, g.weights}, probes.policy(), "text_conditioner");
    const NamedTensors out = c->run(g.io, probes);
    EXPECT_EQ(out.at("out.text_embeds").narrow(1, 8, 2).abs().max().item<float>(), 0.f);
    NamedTensors in = g.io;
    in.erase("in.target_attention_mask");
    in.erase("in.source_attention_mask");
    auto unmasked = c->run(in, probes).at("out.text_embeds");
    EXPECT_GT(unmasked.narrow(1, 8, 2).abs().max().item<float>(), 0.1f);
}

TEST(AnimaAdapter, LayerNormConfigMatchesTheReferencePort) {
    const ModelCase c = layerNormCase();
    ProbeContext probes = contextFor("");
    auto model = loadAnimaTextConditioner(c.config, c.weights, probes.policy());
    EXPECT_EQ(keysOf(stateOf(*model)), keysOf(c.weights));
    EXPECT_FALSE(c.weights.count("in_proj.weight"));  // model_dim == target_dim
    EXPECT_TRUE(c.weights.count("blocks.1.norm_mlp.bias"));
    const NamedTensors out = runAnimaTextConditioner(model, c.io, probes);
    EXPECT_LE(compareAnimaAdapter(out, c.io, "layer norm, no self-attn"), 1e-4);
    // 7 target tokens padded to min_sequence_length 12 with zeros.
    const auto& t = out.at("out.text_embeds");
    ASSERT_EQ(t.sizes(), (std::vector<int64_t>{2, 12, 16}));
    EXPECT_EQ(t.narrow(1, 7, 5).abs().max().item<float>(), 0.f);
}

TEST(AnimaAdapter, ReducedPrecisionAgreesWithFp32) {
    const ModelCase c = layerNormCase();
    ProbeContext p32 = contextFor("");
    auto m32 = loadAnimaTextConditioner(c.config, c.weights, p32.policy());
    auto o32 = runAnimaTextConditioner(m32, c.io, p32).at("out.text_embeds");
    for (CpuBf16 mode : test::bf16ModesHere()) {
        test::ScopedCpuBf16 scoped(mode);
        for (auto [plan, tol] : {std::pair<const char*, double>{"text_conditioner=bf16", 5e-2},
                                 {"text_conditioner=fp16", 1e-2}}) {
            ProbeContext p = contextFor(plan);
            auto m = loadAnimaTextConditioner(c.config, c.weights, p.policy());
            const double err =
                relErr(runAnimaTextConditioner(m, c.io, p).at("out.text_embeds"), o32);
            std::printf("  bf16 %-8s %-24s vs fp32: rel err %.3e\n", cpuBf16Name(mode).c_str(),
                        plan, err);
            EXPECT_LT(err, tol) << plan;
            EXPECT_GT(err, 0.0) << plan;
        }
    }
}

HS_CASES(AnimaAdapter, FamilyWeights,
         test::WeightCase{"golden",
                          goldenAnimaAdapter,
                          {test::weightRemoved("blocks.0.self_attn.k_norm.weight"),
                           test::weightSet("embed.weight", torch::zeros({99, 24})),
                           // the file has self-attention weights
                           test::configSet("use_self_attention", false, {"self_attn"})}});

// A block whose MLP output passes 65504 in fp16: named inside that block, the block itself at
// Module level; fp32 stays finite (the final RMSNorm rescales).
TEST(AnimaAdapter, Fp16OverflowIsNamedInsideTheBlock) {
    ModelCase g = goldenAnimaAdapter();
    // (The weights are views of a read-only mapped file: scale copies.)
    g.weights["blocks.1.mlp.2.weight"] = g.weights["blocks.1.mlp.2.weight"] * 1.5e5;
    g.weights["blocks.1.mlp.2.bias"] = g.weights["blocks.1.mlp.2.bias"] * 1.5e5;
    const std::string block = "text_conditioner.blocks.1";
    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) { return test::loadModel(g, p); }, test::onlyInputs(g.io),
         "text_conditioner=fp16", block, block + ".mlp"},
        {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module},
        [&](ProbeLevel level, const FirstNonFinite& first, Component&, ProbeContext&) {
            EXPECT_EQ(first.at.name, level == ProbeLevel::Module ? block : block + ".mlp");
        });
}

}  // namespace
}  // namespace hs
