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

#include "golden_helpers.h"
#include "io/safetensors.h"
#include "models/anima/anima_family.h"
#include "test_util.h"

namespace hs {
namespace {

using test::contextFor;
using test::expectThrowNaming;
using test::keysOf;
using test::readJson;

using test::dataPath;
using test::relErr;

struct CaseAnimaAdapter {
    nlohmann::json config;
    WeightMap weights;
    NamedTensors io;
};

CaseAnimaAdapter loadCaseAnimaAdapter(const std::string& dir, const std::string& ioPath) {
    CaseAnimaAdapter c;
    c.config = readJson(dataPath(dir + "/config.json"));
    c.weights =
        weightMapOf(TensorSet::open(dataPath(dir + "/diffusion_pytorch_model.safetensors")));
    auto io = TensorSet::open(dataPath(ioPath));
    for (const auto& n : io.names()) c.io.emplace(n, io.tensor(n));
    return c;
}

CaseAnimaAdapter goldenAnimaAdapter() {
    return loadCaseAnimaAdapter("golden/anima_adapter", "golden/anima_adapter_io.safetensors");
}
CaseAnimaAdapter layerNormCase() {
    return loadCaseAnimaAdapter("cosmos/anima_ln", "cosmos/anima_ln_io.safetensors");
}

double compareAnimaAdapter(const NamedTensors& out, const NamedTensors& io,
                           const std::string& label) {
    return test::compareOutput(out, io, "out.text_embeds", "anima adapter " + label);
}

TEST(AnimaAdapterConfig, ReadsGoldenConfigAndNamesBadFields) {
    const auto j = readJson(dataPath("golden/anima_adapter/config.json"));
    auto c = AnimaAdapterConfig::fromJson(j);
    EXPECT_EQ(c.headDim(), 8);
    EXPECT_EQ(c.mlpDim(), 64);
    EXPECT_TRUE(c.hasInProj());
    EXPECT_EQ(c.minSequenceLength, 8);
    auto bad = [&](const char* key, nlohmann::json value, const std::string& needle) {
        auto k = j;
        k[key] = value;
        expectThrowNaming<ConfigError>([&] { AnimaAdapterConfig::fromJson(k); }, {needle});
    };
    bad("num_attention_heads", 3, "model_dim");
    bad("num_attention_heads", 32, "even head width");  // heads of width 1
    bad("mlp_ratio", 0.0, "mlp_ratio");
    bad("target_vocab_size", 1 << 30, "target_vocab_size");
    bad("use_layer_norm", "no", "use_layer_norm");
    bad("min_sequence_length", -1, "min_sequence_length");
}

TEST(AnimaAdapter, GoldenParity) {
    const CaseAnimaAdapter g = goldenAnimaAdapter();
    for (ProbeLevel level : {ProbeLevel::Off, ProbeLevel::Op}) {
        ProbeContext probes = contextFor("", level);
        auto model = loadAnimaTextConditioner(g.config, g.weights, probes.policy());
        EXPECT_EQ(keysOf(stateOf(*model)), keysOf(g.weights));  // keys are diffusers' own
        const double err = compareAnimaAdapter(runAnimaTextConditioner(model, g.io, probes), g.io,
                                               "golden (probes " + probeLevelName(level) + ")");
        EXPECT_LE(err, 1e-4);
    }
}

TEST(AnimaAdapter, GoldenParityThroughTheFamily) {
    const CaseAnimaAdapter g = goldenAnimaAdapter();
    auto family = FamilyRegistry::global().require("AnimaTextConditioner", "test");
    EXPECT_EQ(family->role, Role::Adapter);
    EXPECT_EQ(family->defaultComponent, "text_conditioner");
    ProbeContext probes = contextFor("", ProbeLevel::Layer);
    auto c =
        loadComponent(*family, {"test", g.config, g.weights}, probes.policy(), "text_conditioner");
    const NamedTensors out = c->run(g.io, probes);
    EXPECT_LE(compareAnimaAdapter(out, g.io, "golden via family"), 1e-4);
    // The target mask zeroes the padded tokens (the last two of ten).
    EXPECT_EQ(out.at("out.text_embeds").narrow(1, 8, 2).abs().max().item<float>(), 0.f);
    // Without masks every token attends everywhere: a different, unmasked result.
    NamedTensors in = g.io;
    in.erase("in.target_attention_mask");
    in.erase("in.source_attention_mask");
    auto unmasked = c->run(in, probes).at("out.text_embeds");
    EXPECT_GT(unmasked.narrow(1, 8, 2).abs().max().item<float>(), 0.1f);
}

TEST(AnimaAdapter, LayerNormConfigMatchesTheReferencePort) {
    const CaseAnimaAdapter c = layerNormCase();
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
    const CaseAnimaAdapter c = layerNormCase();
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

TEST(AnimaAdapter, ProbeNamesAndGranularity) {
    const CaseAnimaAdapter g = goldenAnimaAdapter();
    ProbeContext probes = contextFor("", ProbeLevel::Op);
    auto model = loadAnimaTextConditioner(g.config, g.weights, probes.policy());
    runAnimaTextConditioner(model, g.io, probes);
    std::map<std::string, ProbeLevel> got;
    for (const auto& r : probes.records()) got.emplace(r.name, r.granularity);
    const std::string b = "text_conditioner.blocks.1";
    const std::map<std::string, ProbeLevel> expected{
        {b, ProbeLevel::Module},
        {"text_conditioner.norm", ProbeLevel::Module},
        {"text_conditioner.embed", ProbeLevel::Layer},
        {"text_conditioner.in_proj", ProbeLevel::Layer},
        {"text_conditioner.out_proj", ProbeLevel::Layer},
        {b + ".norm_self_attn", ProbeLevel::Layer},
        {b + ".self_attn", ProbeLevel::Layer},
        {b + ".self_attn_residual", ProbeLevel::Layer},
        {b + ".cross_attn", ProbeLevel::Layer},
        {b + ".cross_attn_residual", ProbeLevel::Layer},
        {b + ".mlp", ProbeLevel::Layer},
        {b + ".mlp.1", ProbeLevel::Op},
        {b + ".cross_attn.rope_k", ProbeLevel::Op},
        {b + ".self_attn.q_norm", ProbeLevel::Op},
        {"text_conditioner.masked", ProbeLevel::Op}};
    for (const auto& kv : expected) {
        ASSERT_TRUE(got.count(kv.first)) << "no probe point " << kv.first;
        EXPECT_EQ(got.at(kv.first), kv.second) << kv.first;
    }
    ProbeContext layer = contextFor("", ProbeLevel::Layer);
    runAnimaTextConditioner(model, g.io, layer);
    std::set<std::string> seen;
    for (const auto& r : layer.records()) {
        EXPECT_LE(int(r.granularity), int(ProbeLevel::Layer)) << r.name;
        EXPECT_TRUE(seen.insert(r.name).second) << "recorded twice: " << r.name;
        EXPECT_TRUE(r.stats.allFinite()) << r.name;
    }
    EXPECT_EQ(seen.size(), 2u + 2 * 9u + 2u);  // embed, in_proj, 2 blocks, out_proj, norm
}

TEST(AnimaAdapter, LoadErrorsNameTheKey) {
    const CaseAnimaAdapter g = goldenAnimaAdapter();
    ProbeContext probes = contextFor("");
    auto expectError = [&](const nlohmann::json& config, const WeightMap& w,
                           const std::string& key) {
        expectThrowNaming<WeightError>(
            [&] { loadAnimaTextConditioner(config, w, probes.policy()); }, {key});
    };
    auto w = g.weights;
    w.erase("blocks.0.self_attn.k_norm.weight");
    expectError(g.config, w, "blocks.0.self_attn.k_norm.weight");
    w = g.weights;
    w["embed.weight"] = torch::zeros({99, 24});
    expectError(g.config, w, "embed.weight");
    auto noSelf = g.config;
    noSelf["use_self_attention"] = false;
    expectError(noSelf, g.weights, "self_attn");  // the file has self-attention weights
}

TEST(AnimaAdapter, InputErrorsNameTheKeyAndShape) {
    const CaseAnimaAdapter g = goldenAnimaAdapter();
    ProbeContext probes = contextFor("");
    auto model = loadAnimaTextConditioner(g.config, g.weights, probes.policy());
    auto expectError = [&](const NamedTensors& in, const std::vector<std::string>& needles) {
        expectThrowNaming<InputError>([&] { runAnimaTextConditioner(model, in, probes); }, needles);
    };
    auto in = g.io;
    in["in.source_hidden_states"] = torch::zeros({1, 7, 32});
    expectError(in, {"in.source_hidden_states", "[B, S, 24]"});
    in = g.io;
    in["in.target_input_ids"] = torch::full({1, 10}, 100, torch::kInt64);
    expectError(in, {"in.target_input_ids", "0..99"});
    in = g.io;
    in["in.target_input_ids"] = torch::zeros({1, 10});
    expectError(in, {"in.target_input_ids", "integer"});
    in = g.io;
    in["in.source_attention_mask"] = torch::ones({1, 6}, torch::kInt64);
    expectError(in, {"in.source_attention_mask", "[1, 7]"});
    in = g.io;
    in.erase("in.target_input_ids");
    expectError(in, {"missing input 'in.target_input_ids'"});
    in = g.io;
    in["in.input_ids"] = torch::zeros({1, 10}, torch::kInt64);
    expectError(in, {"in.input_ids"});
}

// A block whose MLP output passes 65504 in fp16: named inside that block, the block itself at
// Module level; fp32 stays finite (the final RMSNorm rescales).
TEST(AnimaAdapter, Fp16OverflowIsNamedInsideTheBlock) {
    CaseAnimaAdapter g = goldenAnimaAdapter();
    // (The weights are views of a read-only mapped file: scale copies.)
    g.weights["blocks.1.mlp.2.weight"] = g.weights["blocks.1.mlp.2.weight"] * 1.5e5;
    g.weights["blocks.1.mlp.2.bias"] = g.weights["blocks.1.mlp.2.bias"] * 1.5e5;
    const std::string block = "text_conditioner.blocks.1";
    ProbeContext p32 = contextFor("", ProbeLevel::Layer);
    auto m32 = loadAnimaTextConditioner(g.config, g.weights, p32.policy());
    auto o32 = runAnimaTextConditioner(m32, g.io, p32).at("out.text_embeds");
    EXPECT_TRUE(torch::isfinite(o32).all().item<bool>());
    double mlpMax = 0;
    for (const auto& r : p32.records())
        if (r.name == block + ".mlp") mlpMax = r.stats.absMax;
    std::printf("  fp32: max |%s.mlp| = %.4g\n", block.c_str(), mlpMax);
    EXPECT_GT(mlpMax, kFp16Max);
    for (ProbeLevel level : {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module}) {
        ProbeContext p16 = contextFor("text_conditioner=fp16", level);
        auto m16 = loadAnimaTextConditioner(g.config, g.weights, p16.policy());
        for (const auto& kv : m16->named_parameters())  // the weights themselves fit fp16
            ASSERT_TRUE(torch::isfinite(kv.value()).all().item<bool>()) << kv.key();
        runAnimaTextConditioner(m16, g.io, p16);
        const auto& first = p16.firstNonFinite();
        ASSERT_TRUE(first.has_value()) << probeLevelName(level);
        std::printf("  fp16, probes %-6s: first non-finite at %s\n", probeLevelName(level).c_str(),
                    first->at.name.c_str());
        EXPECT_EQ(first->at.name, level == ProbeLevel::Module ? block : block + ".mlp");
    }
}

}  // namespace
}  // namespace hs
