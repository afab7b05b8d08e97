// transformers Qwen3Model and Qwen2Model as text encoders: golden parity (last hidden state and
// every hidden state, right padding), run-module, other configurations against the plain-PyTorch
// port in bench/reference/qwen_reference.py, the checkpoint layouts (*ForCausalLM, Qwen2.5-VL),
// config, weight and input errors, and an fp16 overflow named inside the model.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "families/qwen/qwen_family.h"
#include "models/registry.h"
#include "test_util.h"

namespace hs {
namespace {

using CaseQwen = test::ModelCase;

// "qwen3" or "qwen2": the golden folder and its io file.
const CaseQwen& goldenQwen(const std::string& name) {
    static std::map<std::string, CaseQwen> cases;
    auto it = cases.find(name);
    if (it != cases.end()) return it->second;
    return cases
        .emplace(name, test::openCase("golden/" + name, "golden/" + name + "_io.safetensors"))
        .first->second;
}

std::shared_ptr<QwenTextComponent> loadQwen(const nlohmann::json& config, const WeightMap& weights,
                                            const PrecisionPolicy& policy) {
    const auto archs = config.at("architectures");
    const auto family = FamilyRegistry::global().require(archs[0].get<std::string>(), "test");
    auto c = loadComponent(*family, {"test", config, weights}, policy, "text_encoder");
    return std::dynamic_pointer_cast<QwenTextComponent>(c);
}

NamedTensors runQwen(const CaseQwen& c, const std::string& plan = "",
                     ProbeContext* probesOut = nullptr, const NamedTensors* inputs = nullptr) {
    ProbeContext local = contextFor(plan);
    ProbeContext& probes = probesOut ? *probesOut : local;
    NamedTensors in = inputs ? *inputs : c.io;
    for (auto it = in.begin(); it != in.end();)
        it = it->first.rfind("out.", 0) == 0 ? in.erase(it) : std::next(it);
    return loadQwen(c.config, c.weights, probes.policy())->run(in, probes);
}

// The worst relative error over out.last_hidden_state and every out.hidden_states.N.
double worstErrorQwen(const NamedTensors& got, const NamedTensors& ref) {
    size_t compared = 0;
    const double worst = test::worstOutputError(got, ref, &compared);
    EXPECT_EQ(compared, got.size());
    return worst;
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// The golden files (right padding; last_hidden_state and every hidden state), and the cases of
// bench/reference/qwen_reference.py (checked on the golden files first;
// /usr/bin/python3 bench/reference/qwen_reference.py cases tests/data/qwen):
//   qwen3_mqa: Qwen3ForCausalLM keys (model.*), attention_bias, 5 query heads on 1 key/value
//   head, head_dim 12 over a 40-wide model, rope_theta 1e4; prompts full, right- and left-padded
//   (the left-padded one's first queries see only padding).
//   qwen25vl_text: Qwen2_5_VLForConditionalGeneration with text_config, mrope, visual.* and
//   lm_head beside model.*, 6 heads without grouping, left and right padding (positions from the
//   mask).
HS_CASES(Qwen, FamilyGolden, test::GoldenCase("golden/qwen3", 5, 1e-5),
         test::GoldenCase("golden/qwen2", 5, 1e-5), test::GoldenCase("qwen/qwen3_mqa", 4, 1e-5),
         test::GoldenCase("qwen/qwen25vl_text", 4, 1e-5));

// Layer by layer from the mapped file (LoadMode::Streamed), bare and "model." keys alike: one
// block a hidden layer.
const std::vector<std::string> kPlansQwen = {"text_encoder=fp32", "text_encoder=fp16"};
HS_CASES(Qwen, FamilyStreaming, test::StreamingCase("golden/qwen3", 3, kPlansQwen),
         test::StreamingCase("qwen/qwen3_mqa", 2, kPlansQwen));

// Op: embed, cos, sin, norm + per layer 4 layer-level + 1 module + 10 attention + 4 mlp +
// attn_residual.
test::ProbeCase probesQwen() {
    const std::string plan = "text_encoder=fp32", l0 = "text_encoder.layers.0";
    return test::ProbeCase(
        "qwen3", [] { return goldenQwen("qwen3"); },
        {test::ProbeExpectation(ProbeLevel::Module, plan)
             .has({l0, "text_encoder.layers.1", "text_encoder.layers.2"})
             .distinctNames(3),
         test::ProbeExpectation(ProbeLevel::Layer, plan)
             .has({l0 + ".self_attn", l0 + ".mlp", l0 + ".input_layernorm", "text_encoder.norm",
                   "text_encoder.embed_tokens"})
             .distinctNames(3 + 2 + 3 * 4),
         test::ProbeExpectation(ProbeLevel::Op, plan)
             .has({l0 + ".self_attn.q_norm", l0 + ".self_attn.k_rope", l0 + ".self_attn.scores",
                   l0 + ".self_attn.weights", l0 + ".mlp.gate", l0 + ".attn_residual",
                   "text_encoder.rotary_emb.cos"})
             .distinctNames(4 + 3 * (4 + 1 + 10 + 4 + 1))});
}

HS_CASES(Qwen, FamilyProbes, probesQwen());

HS_CASES(Qwen, FamilyBf16, test::Bf16Case("golden/qwen2"));

HS_CASES(Qwen, FamilyConfig,
         test::ConfigCase{
             "qwen3",
             [] { return goldenQwen("qwen3").config; },
             [](const nlohmann::json& j) { qwenConfigFromJson(j); },
             {test::setting("num_hidden_layers", 1 << 30), test::setting("num_key_value_heads", 3),
              test::setting("head_dim", 15), test::setting("hidden_act", "gelu"),
              test::setting("use_sliding_window", true),
              test::setting("layer_types", {"full_attention", "sliding_attention"}),
              test::setting("rope_scaling", {{"rope_type", "yarn"}}),
              test::setting("rms_norm_eps", 0), test::setting("architectures", {"LlamaModel"})}});

HS_CASES(Qwen, FamilyInputs,
         test::InputCase{
             "qwen3", [] { return goldenQwen("qwen3"); },
             test::tokenIdEdits(
                 200, {test::inputsOnly({{"in.input_ids", torch::zeros({1, 129}, torch::kInt64)}},
                                        {"L <= 128"}),
                       test::inputsOnly({{"in.input_ids", torch::tensor({{3, 4}})},
                                         {"in.attention_mask", torch::ones({1, 3})}},
                                        {"in.attention_mask"}),
                       test::inputsOnly({{"in.input_ids", torch::tensor({{3, 4}})},
                                         {"in.attention_mask", torch::tensor({{1, 2}})}},
                                        {"0 (padding) or 1"}),
                       test::inputsOnly({{"in.input_ids", torch::tensor({{3, 4}})},
                                         {"in.mask", torch::ones({1, 2})}},
                                        {"unexpected input 'in.mask'"})})});

// ---- Qwen's own ---------------------------------------------------------------------------------

TEST(QwenConfig, ReadsBothVariants) {
    QwenConfig c = qwenConfigFromJson(goldenQwen("qwen3").config);
    EXPECT_EQ(c.variant, QwenVariant::Qwen3);
    EXPECT_TRUE(c.qkNorm);
    EXPECT_FALSE(c.qkvBias);
    EXPECT_EQ(c.headDim, 16);
    EXPECT_EQ(c.qWidth(), 64);  // wider than hidden_size 48: head_dim is explicit
    EXPECT_EQ(c.numKeyValueHeads, 2);
    EXPECT_DOUBLE_EQ(c.ropeTheta, 1e6);
    c = qwenConfigFromJson(goldenQwen("qwen2").config);
    EXPECT_EQ(c.variant, QwenVariant::Qwen2);
    EXPECT_FALSE(c.qkNorm);
    EXPECT_TRUE(c.qkvBias);
    EXPECT_FALSE(c.oBias);
    EXPECT_EQ(c.headDim, 12);
    EXPECT_FALSE(c.maskedPositions);
    // Qwen2.5-VL: the text fields in text_config, mrope accepted.
    nlohmann::json vl = {{"architectures", {"Qwen2_5_VLForConditionalGeneration"}},
                         {"text_config", goldenQwen("qwen2").config}};
    vl["text_config"]["rope_scaling"] = {{"type", "mrope"}, {"mrope_section", {2, 2, 2}}};
    c = qwenConfigFromJson(vl);
    EXPECT_EQ(c.variant, QwenVariant::Qwen2);
    EXPECT_EQ(c.hiddenSize, 48);
    EXPECT_TRUE(c.maskedPositions);
}

// The last hidden state is the normed one, as transformers returns it.
TEST(QwenText, TheLastHiddenStateIsTheNormedOne) {
    const NamedTensors out = runQwen(goldenQwen("qwen3"), "text_encoder=fp32");
    EXPECT_TRUE(torch::equal(out.at("out.hidden_states.3"), out.at("out.last_hidden_state")));
}

TEST(QwenText, PaddingMasksKeysNotEarlierTokens) {
    // Right padding changes nothing before the padding (causal attention) and the padded
    // positions' outputs do change: the mask reaches the attention.
    const CaseQwen& c = goldenQwen("qwen3");
    NamedTensors in{{"in.input_ids", c.io.at("in.input_ids")}};
    const NamedTensors open = runQwen(c, "", nullptr, &in);
    const NamedTensors masked = runQwen(c);
    const auto& a = open.at("out.last_hidden_state");
    const auto& b = masked.at("out.last_hidden_state");
    EXPECT_TRUE(torch::allclose(a[0], b[0], 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(a[1].narrow(0, 0, 9), b[1].narrow(0, 0, 9), 1e-5, 1e-6));
    EXPECT_GT((a[1].narrow(0, 9, 3) - b[1].narrow(0, 9, 3)).abs().max().item<double>(), 1e-3);
    // encode() without a mask is the unmasked run.
    ProbeContext probes = contextFor("");
    auto comp = loadQwen(c.config, c.weights, probes.policy());
    const TextEncoding e = comp->encode(c.io.at("in.input_ids"), probes);
    EXPECT_TRUE(torch::allclose(e.lastHiddenState, a, 1e-6, 1e-6));
    EXPECT_EQ(e.hiddenStates.size(), 4u);
    EXPECT_EQ(comp->width(), 48);
}

TEST(QwenText, RunModuleReproducesTheGolden) {
    for (const std::string name : {"qwen3", "qwen2"}) {
        const std::string out = test::tempDir("qwen-run-module") + "/out.safetensors";
        int status = -1;
        const std::string printed = test::runCli(
            "run-module --model '" + dataPath("golden/" + name) + "' --inputs '" +
                dataPath("golden/" + name + "_io.safetensors") + "' --output '" + out + "'",
            status);
        ASSERT_EQ(status, 0) << printed;
        EXPECT_NE(printed.find("as 'text_encoder'"), std::string::npos) << printed;
        EXPECT_LE(worstErrorQwen(test::readTensorsFile(out), goldenQwen(name).io), 1e-5) << name;
    }
}

// The golden weights under another key prefix (and with the keys the family ignores).
WeightMap prefixed(const WeightMap& w, const std::string& prefix) {
    WeightMap r;
    for (const auto& kv : w) r[prefix + kv.first] = kv.second;
    return r;
}

TEST(QwenText, LoadsCausalLmAndQwen25VlLayouts) {
    const CaseQwen& c = goldenQwen("qwen2");
    const auto ref = c.io.at("out.last_hidden_state");
    NamedTensors in{{"in.input_ids", c.io.at("in.input_ids")},
                    {"in.attention_mask", c.io.at("in.attention_mask")}};
    auto runWith = [&](const nlohmann::json& config, const WeightMap& w) {
        ProbeContext probes = contextFor("");
        auto comp = loadQwen(config, w, probes.policy());
        return comp->run(in, probes).at("out.last_hidden_state");
    };
    // Qwen2ForCausalLM: model.* plus lm_head.
    auto causal = c.config;
    causal["architectures"] = {"Qwen2ForCausalLM"};
    WeightMap w = prefixed(c.weights, "model.");
    w["lm_head.weight"] = torch::zeros({200, 48});
    EXPECT_LE(relErr(runWith(causal, w), ref), 1e-5);
    // Qwen2.5-VL as released (model.*, visual.*) and as transformers >= 4.52 saves it
    // (model.language_model.*, model.visual.*). Right padding: its mask-derived positions equal
    // 0 .. L-1 on every real token.
    nlohmann::json vl = {{"architectures", {"Qwen2_5_VLForConditionalGeneration"}},
                         {"text_config", c.config}};
    w["visual.blocks.0.attn.qkv.weight"] = torch::zeros({3, 3});
    const auto released = runWith(vl, w);
    EXPECT_LE(relErr(released.narrow(1, 0, 9), ref.narrow(1, 0, 9)), 1e-5);
    EXPECT_LE(relErr(released[0], ref[0]), 1e-5);
    w = prefixed(c.weights, "model.language_model.");
    w["model.visual.merger.mlp.0.weight"] = torch::zeros({3, 3});
    EXPECT_TRUE(torch::equal(runWith(vl, w), released));
}

// A case of bench/reference/qwen_reference.py (described at FamilyGolden above).
CaseQwen portCase(const std::string& name) {
    return test::openCase("qwen/" + name, "qwen/" + name + "_io.safetensors");
}

// Padding as the port has it (whose outputs both cases match: FamilyGolden above).
TEST(QwenText, PaddingFollowsThePort) {
    // The left-padded Qwen3 prompt: its first 3 queries attend to padding only, and eager
    // attention spreads them evenly over all keys (a plain causal softmax would not).
    const CaseQwen c = portCase("qwen3_mqa");
    NamedTensors in = c.io;
    in.erase("in.attention_mask");
    const auto open = runQwen(c, "", nullptr, &in).at("out.last_hidden_state");
    const auto& masked = c.io.at("out.last_hidden_state");
    EXPECT_GT((open[2].narrow(0, 0, 3) - masked[2].narrow(0, 0, 3)).abs().max().item<double>(),
              1e-3);
    // Qwen2.5-VL's positions follow the mask: the same weights as a Qwen2Model (positions
    // 0 .. L-1 whatever the mask) agree on every real token (RoPE is relative, padded keys are
    // masked) and differ at the right-padded prompt's padding queries (position 1 there).
    CaseQwen vl = portCase("qwen25vl_text");
    const auto& ref = vl.io.at("out.last_hidden_state");
    vl.config["architectures"] = {"Qwen2Model"};
    const auto plain = runQwen(vl).at("out.last_hidden_state");
    EXPECT_TRUE(torch::allclose(plain[0], ref[0], 1e-5, 1e-5));
    EXPECT_TRUE(torch::allclose(plain[1], ref[1], 1e-5, 1e-5));
    EXPECT_TRUE(torch::allclose(plain[2].narrow(0, 0, 6), ref[2].narrow(0, 0, 6), 1e-5, 1e-5));
    EXPECT_GT((plain[2].narrow(0, 6, 3) - ref[2].narrow(0, 6, 3)).abs().max().item<double>(), 1e-3);
}

void expectWeightErrorQwen(const CaseQwen& c, const WeightMap& w, const std::string& needle) {
    try {
        loadQwen(c.config, w, PrecisionPolicy(PrecisionPlan(), torch::kCPU));
        ADD_FAILURE() << "no error for " << needle;
    } catch (const WeightError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(QwenText, LoadingErrorsNameTheTensor) {
    const CaseQwen& q3 = goldenQwen("qwen3");
    WeightMap w = q3.weights;
    w.erase("layers.1.self_attn.k_norm.weight");
    expectWeightErrorQwen(q3, w, "layers.1.self_attn.k_norm.weight");
    w = q3.weights;
    w["layers.0.self_attn.k_proj.weight"] = torch::zeros({64, 48});  // no grouped-query heads
    expectWeightErrorQwen(q3, w, "layers.0.self_attn.k_proj.weight");
    // A Qwen2 checkpoint under a Qwen3 config: the biases are not Qwen3's, the q/k norms missing.
    expectWeightErrorQwen(q3, goldenQwen("qwen2").weights, "self_attn");
    const CaseQwen& q2 = goldenQwen("qwen2");
    w = q2.weights;
    w.erase("layers.2.self_attn.v_proj.bias");
    expectWeightErrorQwen(q2, w, "layers.2.self_attn.v_proj.bias");
}

// The golden Qwen3 with layer 1's feed-forward scaled past fp16's range through its weights
// (x200 on up_proj, x4000 on down_proj, all still far inside fp16): finite in fp32, where the
// next norms bring it back.
WeightMap overflowingWeightsQwen() {
    WeightMap w = goldenQwen("qwen3").weights;
    for (const char* k : {"layers.1.mlp.up_proj.weight", "layers.1.mlp.down_proj.weight"})
        w[k] = w.at(k) * (std::string(k).find("up") != std::string::npos ? 200 : 4000);
    return w;
}

TEST(QwenText, Fp16FeedForwardOverflowIsNamed) {
    CaseQwen c = goldenQwen("qwen3");
    c.weights = overflowingWeightsQwen();
    ProbeContext fp32 = contextFor("text_encoder=fp32", ProbeLevel::Op);
    runQwen(c, "", &fp32);
    EXPECT_FALSE(fp32.firstNonFinite().has_value());
    double peak = 0;
    for (const auto& r : fp32.records())
        if (r.name == "text_encoder.layers.1.mlp") peak = r.stats.absMax;
    std::cout << "[ qwen3 fp16 ] layer 1 feed-forward peaks at " << peak << " in fp32\n";
    EXPECT_GT(peak, kFp16Max);
    for (const auto& kv : c.weights)
        EXPECT_LT(kv.second.abs().max().item<double>(), 1000) << kv.first;
    EXPECT_TRUE(torch::isfinite(runQwen(c, "text_encoder=fp32").at("out.last_hidden_state"))
                    .all()
                    .item<bool>());
    for (ProbeLevel level : {ProbeLevel::Layer, ProbeLevel::Op}) {
        ProbeContext fp16 = contextFor("text_encoder=fp16", level);
        const auto out = runQwen(c, "", &fp16).at("out.last_hidden_state");
        ASSERT_TRUE(fp16.firstNonFinite().has_value());
        EXPECT_EQ(fp16.firstNonFinite()->at.name, "text_encoder.layers.1.mlp");
        EXPECT_EQ(fp16.firstNonFinite()->at.format, Format::FP16);
        EXPECT_FALSE(torch::isfinite(out).all().item<bool>());
        // Scores stay fp32, as the fused attention kernels keep them; q, k and the weights are
        // stored in fp16.
        for (const auto& r : fp16.records()) {
            if (r.name == "text_encoder.layers.0.self_attn.scores")
                EXPECT_EQ(r.format, Format::FP32);
            if (r.name == "text_encoder.layers.0.self_attn.weights" ||
                r.name == "text_encoder.layers.0.self_attn.k_rope")
                EXPECT_EQ(r.format, Format::FP16) << r.name;
        }
    }
    // The unscaled model in fp16 stays close to fp32.
    const auto ref = runQwen(goldenQwen("qwen3"), "text_encoder=fp32").at("out.last_hidden_state");
    const auto half = runQwen(goldenQwen("qwen3"), "text_encoder=fp16").at("out.last_hidden_state");
    const double e = relErr(half, ref);
    std::cout << "[ qwen3 fp16 ] relative error vs fp32 " << e << "\n";
    EXPECT_GT(e, 0.0);
    EXPECT_LE(e, 1e-2);
}

}  // namespace
}  // namespace hs
