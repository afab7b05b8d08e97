// transformers CLIPTextModel / CLIPTextModelWithProjection: config, golden parity, other
// configs against an independent eager reference, loading errors, precision plans, probes.
#include <gtest/gtest.h>

#include <cfloat>
#include <fstream>
#include <set>

#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "families/clip/clip_run.h"
#include "families/clip/clip_text_model.h"
#include "test_util.h"

namespace hs {
namespace {

const test::ModelCase& goldenClip() {
    static const test::ModelCase g = test::openCase("golden/clip", "golden/clip_io.safetensors");
    return g;
}

NamedTensors runGolden(const std::string& plan, ProbeContext* probesOut = nullptr,
                       WeightMap weights = goldenClip().weights) {
    ProbeContext local = contextFor(plan);
    ProbeContext& probes = probesOut ? *probesOut : local;
    ClipTextModel model = loadClipText(goldenClip().config, weights, probes.policy());
    return runClipText(model, goldenClip().io, probes);
}

// A config sharing little with the golden one: exact GELU, first-eos pooling (eos 7),
// projection, 2 heads of 12, 2 layers.
nlohmann::json otherConfigClip() {
    return nlohmann::json::parse(R"({
        "architectures": ["CLIPTextModelWithProjection"], "vocab_size": 50, "hidden_size": 24,
        "intermediate_size": 40, "num_attention_heads": 2, "num_hidden_layers": 2,
        "max_position_embeddings": 12, "layer_norm_eps": 1e-5, "hidden_act": "gelu",
        "projection_dim": 16, "bos_token_id": 5, "eos_token_id": 7, "pad_token_id": 1})");
}

WeightMap randomWeightsClip(const nlohmann::json& config, uint64_t seed = 11) {
    torch::manual_seed(seed);
    ClipTextModel m(clipTextConfigFromJson(config));
    nn::initialiseForTraining(*m);
    WeightMap w;
    for (auto& kv : stateOf(*m)) {
        const bool norm = kv.first.find("norm") != std::string::npos;
        const bool weight =
            kv.first.size() > 7 && kv.first.substr(kv.first.size() - 7) == ".weight";
        auto t = torch::randn(kv.second.sizes());
        w.emplace(kv.first, norm && weight ? 1 + 0.1 * t : norm ? 0.05 * t : 0.2 * t);
    }
    return w;
}

// transformers' eager CLIPTextTransformer written out with plain ops (q scaled before the
// product, additive finfo.min mask): an independent check of the module code.
struct RefOut {
    torch::Tensor last, pooled, embeds;
};
RefOut referenceForwardClip(const WeightMap& w, const nlohmann::json& config,
                            const torch::Tensor& ids) {
    const auto c = clipTextConfigFromJson(config);
    const int64_t B = ids.size(0), L = ids.size(1), D = c.hiddenSize, H = c.numAttentionHeads;
    auto W = [&](const std::string& k) { return w.at(k).to(torch::kFloat32); };
    auto ln = [&](const torch::Tensor& x, const std::string& p) {
        return torch::layer_norm(x, {D}, W(p + ".weight"), W(p + ".bias"), c.layerNormEps);
    };
    auto lin = [&](const torch::Tensor& x, const std::string& p) {
        return torch::linear(x, W(p + ".weight"), W(p + ".bias"));
    };
    auto h = W("text_model.embeddings.token_embedding.weight")
                 .index_select(0, ids.flatten())
                 .view({B, L, D}) +
             W("text_model.embeddings.position_embedding.weight").slice(0, 0, L);
    auto mask = torch::full({L, L}, -FLT_MAX).triu(1);
    for (int i = 0; i < c.numHiddenLayers; ++i) {
        const std::string p = "text_model.encoder.layers." + std::to_string(i) + ".";
        auto x = ln(h, p + "layer_norm1");
        auto split = [&](const torch::Tensor& t) {
            return t.view({B, L, H, D / H}).transpose(1, 2);
        };
        auto q = split(lin(x, p + "self_attn.q_proj") * std::pow(double(D / H), -0.5));
        auto k = split(lin(x, p + "self_attn.k_proj"));
        auto v = split(lin(x, p + "self_attn.v_proj"));
        auto a = torch::softmax(torch::matmul(q, k.transpose(-1, -2)) + mask, -1);
        auto o = torch::matmul(a, v).transpose(1, 2).reshape({B, L, D});
        h = h + lin(o, p + "self_attn.out_proj");
        x = lin(ln(h, p + "layer_norm2"), p + "mlp.fc1");
        x = c.hiddenAct == ClipActivation::Gelu ? torch::gelu(x) : x * torch::sigmoid(1.702 * x);
        h = h + lin(x, p + "mlp.fc2");
    }
    RefOut r;
    r.last = ln(h, "text_model.final_layer_norm");
    auto idx =
        c.eosTokenId == 2 ? ids.argmax(-1) : ids.eq(c.eosTokenId).to(torch::kInt32).argmax(-1);
    r.pooled = r.last.index({torch::arange(B), idx});
    if (c.withProjection) r.embeds = torch::linear(r.pooled, W("text_projection.weight"));
    return r;
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// last_hidden_state, pooler_output, hidden_states.0..5.
HS_CASES(Clip, FamilyGolden, test::GoldenCase("golden/clip", 8));

// The probe names follow the component's prefix; Module level keeps the layer outputs only.
test::ProbeExpectation opProbesClip() {
    const std::string l0 = "text_encoder_2.text_model.encoder.layers.0";
    return test::ProbeExpectation(ProbeLevel::Op, "text_encoder_2=fp32")
        .has({l0, l0 + ".layer_norm1", l0 + ".self_attn.q_proj", l0 + ".self_attn.k_proj",
              l0 + ".self_attn.v_proj", l0 + ".self_attn.sdpa", l0 + ".self_attn",
              l0 + ".attn_residual", l0 + ".layer_norm2", l0 + ".mlp.fc1",
              l0 + ".mlp.activation_fn", l0 + ".mlp", "text_encoder_2.text_model.embeddings",
              "text_encoder_2.text_model.embeddings.token_embedding",
              "text_encoder_2.text_model.final_layer_norm"})
        .distinctNames(3 + 5 * 12 + 1);
}

HS_CASES(Clip, FamilyProbes,
         test::ProbeCase(
             "golden", [] { return goldenClip(); },
             {opProbesClip(), test::ProbeExpectation(ProbeLevel::Module).recordCount(5)},
             "text_encoder_2"));

HS_CASES(Clip, FamilyBf16, test::Bf16Case("golden/clip"));

HS_CASES(Clip, FamilyConfig,
         test::ConfigCase{
             "other",
             otherConfigClip,
             [](const nlohmann::json& j) { clipTextConfigFromJson(j); },
             {test::setting("hidden_act", "relu", ""), test::setting("num_attention_heads", 5, ""),
              test::setting("hidden_size", "wide", "")}});

HS_CASES(Clip, FamilyInputs,
         test::InputCase{
             "golden", [] { return goldenClip(); },
             test::tokenIdEdits(
                 1000,
                 {test::inputsOnly({{"in.input_ids", torch::zeros({1, 78}, torch::kInt64)}},
                                   {"77"}),
                  test::inputsOnly({{"in.input_ids", torch::tensor({{3, -1}})}}, {"id -1"})})});

// ---- CLIP's own ---------------------------------------------------------------------------------

TEST(ClipConfig, ReadsTopLevelAndNestedConfigs) {
    auto c = clipTextConfigFromJson(goldenClip().config);
    EXPECT_EQ(c.hiddenSize, 32);
    EXPECT_EQ(c.intermediateSize, 37);
    EXPECT_EQ(c.numAttentionHeads, 4);
    EXPECT_EQ(c.numHiddenLayers, 5);
    EXPECT_EQ(c.vocabSize, 1000);
    EXPECT_EQ(c.eosTokenId, 2);
    EXPECT_EQ(c.hiddenAct, ClipActivation::QuickGelu);
    EXPECT_FALSE(c.withProjection);
    nlohmann::json full = {{"architectures", {"CLIPModel"}},
                           {"projection_dim", 64},
                           {"text_config", otherConfigClip()},
                           {"vision_config", {{"hidden_size", 8}}}};
    full["text_config"].erase("architectures");
    c = clipTextConfigFromJson(full);
    EXPECT_TRUE(c.nestedInFullClip && c.withProjection);
    EXPECT_EQ(c.projectionDim, 64);
    EXPECT_EQ(c.hiddenAct, ClipActivation::Gelu);
}

TEST(ClipText, OtherConfigPoolsAtTheFirstEosAndProjects) {
    const auto config = otherConfigClip();
    const WeightMap w = randomWeightsClip(config);
    ProbeContext probes = contextFor("");
    ClipTextModel model = loadClipText(config, w, probes.policy());
    // Checkpoint keys: every tensor of the map, and the projection without a bias.
    std::set<std::string> keys;
    for (const auto& kv : stateOf(*model)) keys.insert(kv.first);
    EXPECT_EQ(keys.size(), 3u + 16u * 2u + 2u);
    EXPECT_TRUE(keys.count("text_projection.weight") && !keys.count("text_projection.bias"));
    EXPECT_TRUE(keys.count("text_model.encoder.layers.1.self_attn.out_proj.bias"));
    // Batch 3: eos (7) at 4, twice (the first counts), and absent (position 0, as argmax of zeros).
    auto ids =
        torch::tensor({5, 10, 11, 12, 7, 1, 1, 1, 5, 7, 20, 7, 1, 1, 1, 1, 5, 9, 9, 9, 9, 9, 9, 9},
                      torch::kInt64)
            .view({3, 8});
    const NamedTensors out =
        runClipText(model, {{"in.input_ids", ids}, {"note", torch::ones(1)}}, probes);
    ASSERT_TRUE(out.count("out.text_embeds"));
    EXPECT_EQ(out.at("out.text_embeds").sizes(), (std::vector<int64_t>{3, 16}));
    EXPECT_EQ(out.count("out.hidden_states.2"), 1u);
    EXPECT_EQ(out.count("out.hidden_states.3"), 0u);
    const auto& last = out.at("out.last_hidden_state");
    const auto& pooled = out.at("out.pooler_output");
    const int64_t expected[3] = {4, 1, 0};
    for (int b = 0; b < 3; ++b) EXPECT_TRUE(torch::equal(pooled[b], last[b][expected[b]])) << b;
    const RefOut ref = referenceForwardClip(w, config, ids);
    std::cout << "[ clip other config ] relative error last " << relErr(last, ref.last)
              << ", embeds " << relErr(out.at("out.text_embeds"), ref.embeds) << "\n";
    EXPECT_LE(relErr(last, ref.last), 1e-5);
    EXPECT_LE(relErr(pooled, ref.pooled), 1e-5);
    EXPECT_LE(relErr(out.at("out.text_embeds"), ref.embeds), 1e-5);
}

TEST(ClipText, GoldenModelAgreesWithTheEagerReference) {
    const auto ids = goldenClip().io.at("in.input_ids");
    const RefOut ref = referenceForwardClip(goldenClip().weights, goldenClip().config, ids);
    EXPECT_LE(relErr(ref.last, goldenClip().io.at("out.last_hidden_state")), 1e-4);
}

void expectWeightErrorClip(const WeightMap& w, const std::string& needle) {
    ProbeContext probes = contextFor("");
    try {
        loadClipText(goldenClip().config, w, probes.policy());
        ADD_FAILURE() << "no error for " << needle;
    } catch (const WeightError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(ClipText, LoadingErrorsNameTheTensor) {
    const std::string key = "text_model.encoder.layers.3.mlp.fc1.weight";
    WeightMap w = goldenClip().weights;
    w.erase(key);
    expectWeightErrorClip(w, key);
    w = goldenClip().weights;
    w["text_model.encoder.layers.9.mlp.fc1.weight"] = torch::zeros({37, 32});
    expectWeightErrorClip(w, "text_model.encoder.layers.9.mlp.fc1.weight");
    w = goldenClip().weights;
    w[key] = torch::zeros({32, 37});
    expectWeightErrorClip(w, key);
    // Projection weights with a config that says CLIPTextModel are unexpected.
    w = goldenClip().weights;
    w["text_projection.weight"] = torch::zeros({32, 32});
    expectWeightErrorClip(w, "text_projection.weight");
    // Older checkpoints carry the position_ids buffer: ignored.
    w = goldenClip().weights;
    w["text_model.embeddings.position_ids"] = torch::arange(77).view({1, 77});
    ProbeContext probes = contextFor("");
    EXPECT_NO_THROW(loadClipText(goldenClip().config, w, probes.policy()));
}

TEST(ClipText, Fp16OverflowIsReportedAtTheLayer) {
    WeightMap w = goldenClip().weights;
    w["text_model.encoder.layers.2.mlp.fc1.weight"] =
        w.at("text_model.encoder.layers.2.mlp.fc1.weight") * 1e6;
    // fp32: large but finite.
    ProbeContext fp32 = contextFor("text_encoder=fp32", ProbeLevel::Layer);
    runGolden("", &fp32, w);
    EXPECT_FALSE(fp32.firstNonFinite().has_value());
    // fp16 (emulated on CPU): fc1 passes 65504 and the layer's MLP output is the first
    // recorded non-finite tensor at layer granularity, fc1 itself at op granularity.
    ProbeContext layer = contextFor("text_encoder=fp16", ProbeLevel::Layer);
    runGolden("", &layer, w);
    ASSERT_TRUE(layer.firstNonFinite().has_value());
    EXPECT_EQ(layer.firstNonFinite()->at.name, "text_encoder.text_model.encoder.layers.2.mlp");
    EXPECT_EQ(layer.firstNonFinite()->at.format, Format::FP16);
    EXPECT_EQ(layer.firstNonFinite()->at.execution, Execution::Emulated);
    ProbeContext op = contextFor("text_encoder=fp16", ProbeLevel::Op);
    runGolden("", &op, w);
    ASSERT_TRUE(op.firstNonFinite().has_value());
    EXPECT_EQ(op.firstNonFinite()->at.name, "text_encoder.text_model.encoder.layers.2.mlp.fc1");
    // Only layer 2 in fp32 moves the first overflow away from it.
    ProbeContext rescued = contextFor(
        "text_encoder=fp16,text_encoder.text_model.encoder.layers.2*=fp32", ProbeLevel::Layer);
    runGolden("", &rescued, w);
    if (rescued.firstNonFinite()) {
        EXPECT_EQ(rescued.firstNonFinite()->at.name.find("layers.2."), std::string::npos);
    }
}

}  // namespace
}  // namespace hs
