// transformers T5EncoderModel: config, golden parity, another configuration (relu, mask, other
// buckets) against an independent eager reference, loading and input errors, and fp16: the
// feed-forward overflow, the wo-in-fp32 rule and the clamp remedy.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "models/registry.h"
#include "families/t5/t5_family.h"
#include "test_util.h"

namespace hs {
namespace {

const std::string kWo0 = "encoder.block.0.layer.1.DenseReluDense.wo.weight";

const test::ModelCase& goldenT5() {
    static const test::ModelCase g = test::openCase("golden/t5", "golden/t5_io.safetensors");
    return g;
}

std::shared_ptr<T5EncoderComponent> loadT5(const nlohmann::json& config, const WeightMap& weights,
                                           const PrecisionPolicy& policy) {
    const auto family = FamilyRegistry::global().require("T5EncoderModel", "test");
    auto c = loadComponent(*family, {"test", config, weights}, policy, "text_encoder_2");
    return std::dynamic_pointer_cast<T5EncoderComponent>(c);
}

// Runs `inputs` (the golden ones by default) under `plan`, probes in `probes` when given.
NamedTensors runT5(const std::string& plan, ProbeContext* probesOut = nullptr,
                   const WeightMap& weights = goldenT5().weights,
                   const nlohmann::json& config = goldenT5().config,
                   const NamedTensors& inputs = goldenT5().io) {
    ProbeContext local(PrecisionPlan::parse(plan), torch::kCPU, ProbeLevel::Off);
    ProbeContext& probes = probesOut ? *probesOut : local;
    return loadT5(config, weights, probes.policy())->run(inputs, probes);
}

// T5 v1.0 style: relu, one wi, 3 layers, 3 heads of 6 over a 20-wide model, other buckets.
nlohmann::json otherConfigT5() {
    return nlohmann::json::parse(R"({
        "architectures": ["T5EncoderModel"], "vocab_size": 60, "d_model": 20, "d_kv": 6,
        "d_ff": 28, "num_layers": 3, "num_heads": 3, "relative_attention_num_buckets": 12,
        "relative_attention_max_distance": 20, "layer_norm_epsilon": 1e-6,
        "feed_forward_proj": "relu"})");
}

WeightMap randomWeightsT5(const nlohmann::json& config, uint64_t seed = 5) {
    torch::manual_seed(seed);
    T5EncoderModel m(t5ConfigFromJson(config));
    WeightMap w;
    for (auto& kv : stateOf(*m)) {
        auto t = torch::randn(kv.second.sizes());
        const bool norm = kv.first.find("norm") != std::string::npos;
        w.emplace(kv.first, norm ? 1 + 0.1 * t : 0.3 * t);
    }
    return w;
}

// transformers' _relative_position_bucket written element by element.
int64_t referenceBucket(int64_t rel, int numBuckets, int maxDistance) {
    int64_t half = numBuckets / 2, bucket = rel > 0 ? half : 0;
    rel = std::abs(rel);
    const int64_t maxExact = half / 2;
    if (rel < maxExact) return bucket + rel;
    const float scaled = std::log(float(rel) / float(maxExact)) /
                         float(std::log(double(maxDistance) / double(maxExact))) *
                         float(half - maxExact);
    return bucket + std::min<int64_t>(maxExact + int64_t(scaled), half - 1);
}

// transformers' eager T5 encoder with plain ops in fp32: an independent check of the modules.
torch::Tensor referenceForwardT5(const WeightMap& w, const nlohmann::json& config,
                                 const torch::Tensor& ids, const torch::Tensor& mask) {
    const T5Config c = t5ConfigFromJson(config);
    const int64_t B = ids.size(0), L = ids.size(1), H = c.numHeads, Dh = c.dKv;
    auto W = [&](const std::string& k) { return w.at(k).to(torch::kFloat32); };
    auto rms = [&](const torch::Tensor& x, const std::string& k) {
        return W(k) * (x * torch::rsqrt(x.pow(2).mean(-1, true) + c.layerNormEpsilon));
    };
    auto buckets = torch::empty({L, L}, torch::kInt64);
    for (int64_t q = 0; q < L; ++q)
        for (int64_t k = 0; k < L; ++k)
            buckets[q][k] = referenceBucket(k - q, c.relativeAttentionNumBuckets,
                                            c.relativeAttentionMaxDistance);
    auto bias = W("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight")
                    .index_select(0, buckets.flatten())
                    .view({L, L, H})
                    .permute({2, 0, 1})
                    .unsqueeze(0);  // [1, H, L, L]
    if (mask.defined())
        bias = bias + (1 - mask.to(torch::kFloat32)).view({B, 1, 1, L}) *
                          std::numeric_limits<float>::lowest();
    auto h = W("shared.weight").index_select(0, ids.flatten()).view({B, L, c.dModel});
    for (int i = 0; i < c.numLayers; ++i) {
        const std::string p = "encoder.block." + std::to_string(i) + ".layer.";
        auto x = rms(h, p + "0.layer_norm.weight");
        auto split = [&](const std::string& n) {
            return torch::linear(x, W(p + "0.SelfAttention." + n + ".weight"))
                .view({B, L, H, Dh})
                .transpose(1, 2);
        };
        auto a = torch::softmax(torch::matmul(split("q"), split("k").transpose(-1, -2)) + bias, -1);
        auto o = torch::matmul(a, split("v")).transpose(1, 2).reshape({B, L, H * Dh});
        h = h + torch::linear(o, W(p + "0.SelfAttention.o.weight"));
        x = rms(h, p + "1.layer_norm.weight");
        const std::string d = p + "1.DenseReluDense.";
        torch::Tensor f;
        if (c.gated)
            f = torch::gelu(torch::linear(x, W(d + "wi_0.weight")), "tanh") *
                torch::linear(x, W(d + "wi_1.weight"));
        else
            f = torch::relu(torch::linear(x, W(d + "wi.weight")));
        h = h + torch::linear(f, W(d + "wo.weight"));
    }
    return rms(h, "encoder.final_layer_norm.weight");
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

HS_CASES(T5, FamilyGolden, test::GoldenCase("golden/t5", 1, 1e-5).as("text_encoder_2"));

// The encoder's blocks streamed.
HS_CASES(T5, FamilyStreaming, test::StreamingCase("golden/t5", 2));

test::ProbeCase probesT5() {
    const std::string plan = "text_encoder_2=fp32", b0 = "text_encoder_2.encoder.block.0";
    return test::ProbeCase(
        "golden", [] { return goldenT5(); },
        {test::ProbeExpectation(ProbeLevel::Module, plan)
             .has({b0, "text_encoder_2.encoder.block.1"})
             .distinctNames(2),
         test::ProbeExpectation(ProbeLevel::Layer, plan).distinctNames(2 + 2 * 6),
         test::ProbeExpectation(ProbeLevel::Op, plan)
             .has({b0 + ".layer.0.SelfAttention.scores",
                   b0 + ".layer.0.SelfAttention.position_bias",
                   b0 + ".layer.0.SelfAttention.weights", b0 + ".layer.1.DenseReluDense.gate",
                   b0 + ".layer.1.DenseReluDense.act", "text_encoder_2.shared"})
             .distinctNames(2 + 1 + 2 * (6 + 7 + 4))},
        "text_encoder_2");
}

HS_CASES(T5, FamilyProbes, probesT5());

HS_CASES(T5, FamilyBf16, test::Bf16Case("golden/t5", "text_encoder_2"));

HS_CASES(T5, FamilyConfig,
         test::ConfigCase{"other",
                          otherConfigT5,
                          [](const nlohmann::json& j) { t5ConfigFromJson(j); },
                          {test::setting("feed_forward_proj", "gated-tanh", ""),
                           test::setting("feed_forward_proj", "gated-gelu-x", ""),
                           test::setting("num_layers", 1 << 30, ""),
                           test::setting("layer_norm_epsilon", 0, "")}});

HS_CASES(T5, FamilyInputs,
         test::InputCase{
             "golden", [] { return goldenT5(); },
             test::tokenIdEdits(1000,
                                {test::inputsOnly({{"in.input_ids", torch::tensor({{3, 4}})},
                                                   {"in.attention_mask", torch::ones({1, 3})}},
                                                  {"in.attention_mask"}),
                                 test::inputsOnly({{"in.input_ids", torch::tensor({{3, 4}})},
                                                   {"in.mask", torch::ones({1, 2})}},
                                                  {"unexpected input 'in.mask'"})})});

// ---- T5's own -----------------------------------------------------------------------------------

TEST(T5Config, ReadsGatedAndPlainFeedForwards) {
    T5Config c = t5ConfigFromJson(goldenT5().config);
    EXPECT_TRUE(c.gated);
    EXPECT_EQ(c.act, T5Activation::GeluTanh);
    EXPECT_EQ(c.dModel, 32);
    EXPECT_EQ(c.dKv, 8);
    EXPECT_EQ(c.dFf, 37);
    EXPECT_EQ(c.relativeAttentionNumBuckets, 8);
    EXPECT_EQ(c.relativeAttentionMaxDistance, 16);
    c = t5ConfigFromJson(otherConfigT5());
    EXPECT_FALSE(c.gated);
    EXPECT_EQ(c.act, T5Activation::Relu);
}

TEST(T5Encoder, RelativeBucketsMatchTransformers) {
    for (auto [buckets, distance] : {std::pair{32, 128}, {8, 16}, {12, 20}}) {
        const int64_t L = 300;
        auto b = t5RelativeBuckets(L, buckets, distance, torch::kCPU);
        for (int64_t q : {0, 1, 7, 150, 299})
            for (int64_t k = 0; k < L; ++k)
                ASSERT_EQ(b[q][k].item<int64_t>(), referenceBucket(k - q, buckets, distance))
                    << buckets << "/" << distance << " q " << q << " k " << k;
    }
}

// transformers' eager encoder written out with plain ops reproduces the golden output too.
TEST(T5Encoder, GoldenModelAgreesWithTheEagerReference) {
    const auto& ref = goldenT5().io.at("out.last_hidden_state");
    EXPECT_LE(relErr(referenceForwardT5(goldenT5().weights, goldenT5().config,
                                        goldenT5().io.at("in.input_ids"), {}),
                     ref),
              1e-5);
}

TEST(T5Encoder, RunModuleReproducesTheGolden) {
    const std::string out = test::tempDir("t5-run-module") + "/out.safetensors";
    int status = -1;
    const std::string printed =
        test::runCli("run-module --model '" + dataPath("golden/t5") + "' --inputs '" +
                         dataPath("golden/t5_io.safetensors") + "' --output '" + out + "'",
                     status);
    ASSERT_EQ(status, 0) << printed;
    EXPECT_NE(printed.find("T5EncoderModel as 'text_encoder_2'"), std::string::npos) << printed;
    const TensorSet got = TensorSet::open(out);
    EXPECT_LE(
        relErr(got.tensor("out.last_hidden_state"), goldenT5().io.at("out.last_hidden_state")),
        1e-5);
}

TEST(T5Encoder, OtherConfigWithMaskMatchesTheEagerReference) {
    const auto config = otherConfigT5();
    const WeightMap w = randomWeightsT5(config);
    auto ids = torch::randint(0, 60, {2, 9}, torch::kInt64);
    auto mask = torch::ones({2, 9}, torch::kInt64);
    mask.index_put_({1, torch::indexing::Slice(5)}, 0);  // second prompt: 4 padding tokens
    const NamedTensors out =
        runT5("", nullptr, w, config, {{"in.input_ids", ids}, {"in.attention_mask", mask}});
    const auto ref = referenceForwardT5(w, config, ids, mask);
    const double e = relErr(out.at("out.last_hidden_state"), ref);
    std::cout << "[ t5 other config ] relative error with mask " << e << "\n";
    EXPECT_LE(e, 1e-5);
    // The mask matters, and only for the padded prompt.
    const NamedTensors open = runT5("", nullptr, w, config, {{"in.input_ids", ids}});
    const auto& a = out.at("out.last_hidden_state");
    const auto& b = open.at("out.last_hidden_state");
    EXPECT_TRUE(torch::allclose(a[0], b[0], 1e-5, 1e-6));
    EXPECT_GT((a[1] - b[1]).abs().max().item<double>(), 1e-3);
    // Checkpoint keys: no biases, the bucket table in block 0 only.
    std::set<std::string> keys;
    for (const auto& kv : w) keys.insert(kv.first);
    EXPECT_EQ(keys.size(), 1u + 3u * 8u + 1u + 1u);
    EXPECT_FALSE(
        keys.count("encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"));
}

void expectWeightErrorT5(const WeightMap& w, const std::string& needle,
                         const nlohmann::json& config = goldenT5().config) {
    try {
        loadT5(config, w, PrecisionPolicy(PrecisionPlan(), torch::kCPU));
        ADD_FAILURE() << "no error for " << needle;
    } catch (const WeightError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(T5Encoder, LoadingErrorsNameTheTensor) {
    WeightMap w = goldenT5().weights;
    w.erase("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
    expectWeightErrorT5(w, "relative_attention_bias");
    // A vocabulary that disagrees with the config: the embedding's shape is named.
    w = goldenT5().weights;
    w["shared.weight"] = torch::zeros({1200, 32});
    expectWeightErrorT5(w, "shared.weight");
    auto bigger = goldenT5().config;
    bigger["vocab_size"] = 32128;
    expectWeightErrorT5(goldenT5().weights, "shared.weight", bigger);
    // A v1.0 feed-forward in a v1.1 config.
    w = goldenT5().weights;
    w["encoder.block.1.layer.1.DenseReluDense.wi.weight"] = torch::zeros({37, 32});
    expectWeightErrorT5(w, "DenseReluDense.wi.weight");
    // The tied encoder.embed_tokens copy some releases save is ignored.
    w = goldenT5().weights;
    w["encoder.embed_tokens.weight"] = w.at("shared.weight");
    EXPECT_NO_THROW(loadT5(goldenT5().config, w, PrecisionPolicy(PrecisionPlan(), torch::kCPU)));
}

// The golden model with block 0's feed-forward output scaled past fp16's range through its
// weights (x150 on wi_1, x300 on wo, all still far inside fp16): finite in fp32 (the final RMS
// norm brings it back), Inf in fp16.
WeightMap overflowingWeightsT5() {
    WeightMap w = goldenT5().weights;
    const std::string wi1 = "encoder.block.0.layer.1.DenseReluDense.wi_1.weight";
    w[wi1] = w.at(wi1) * 150;
    w[kWo0] = w.at(kWo0) * 300;
    return w;
}

TEST(T5Encoder, Fp16FeedForwardOverflowIsNamedAndWoInFp32FixesIt) {
    const WeightMap w = overflowingWeightsT5();
    ProbeContext fp32 = contextFor("text_encoder_2=fp32", ProbeLevel::Op);
    const auto ref = runT5("", &fp32, w).at("out.last_hidden_state");
    EXPECT_FALSE(fp32.firstNonFinite().has_value());
    double peak = 0;
    for (const auto& r : fp32.records())
        if (r.name == "text_encoder_2.encoder.block.0.layer.1.DenseReluDense.wo")
            peak = r.stats.absMax;
    std::cout << "[ t5 fp16 ] block 0 feed-forward peaks at " << peak << " in fp32\n";
    EXPECT_GT(peak, kFp16Max);
    for (const auto& kv : w) EXPECT_LT(kv.second.abs().max().item<double>(), 1000) << kv.first;

    // fp16 as loaded by default: the wo output is the first non-finite tensor, at layer and op
    // granularity alike (everything before it stays in range).
    for (ProbeLevel level : {ProbeLevel::Layer, ProbeLevel::Op}) {
        ProbeContext fp16 = contextFor("text_encoder_2=fp16", level);
        const auto out = runT5("", &fp16, w).at("out.last_hidden_state");
        ASSERT_TRUE(fp16.firstNonFinite().has_value());
        EXPECT_EQ(fp16.firstNonFinite()->at.name,
                  "text_encoder_2.encoder.block.0.layer.1.DenseReluDense.wo");
        EXPECT_EQ(fp16.firstNonFinite()->at.format, Format::FP16);
        EXPECT_FALSE(torch::isfinite(out).all().item<bool>());
    }

    // transformers' _keep_in_fp32_modules: wo in fp32, and the residual stream with it.
    const std::string keep = "text_encoder_2=fp16,text_encoder_2.encoder.block.*.wo=fp32";
    ProbeContext kept = contextFor(keep, ProbeLevel::Layer);
    const auto fixed = runT5("", &kept, w).at("out.last_hidden_state");
    EXPECT_FALSE(kept.firstNonFinite().has_value());
    const double e = relErr(fixed, ref);
    std::cout << "[ t5 fp16 ] wo in fp32: relative error vs fp32 " << e << "\n";
    EXPECT_LE(e, 1e-2);
    std::map<std::string, Format> formats;
    for (const auto& r : kept.records()) formats[r.name] = r.format;
    EXPECT_EQ(formats.at("text_encoder_2.encoder.block.0.layer.0"), Format::FP16);
    EXPECT_EQ(formats.at("text_encoder_2.encoder.block.0"), Format::FP32);  // promoted
    EXPECT_EQ(formats.at("text_encoder_2.encoder.block.1.layer.0"), Format::FP32);
    EXPECT_EQ(formats.at("text_encoder_2.encoder.block.1.layer.1.layer_norm"), Format::FP16);
    EXPECT_EQ(formats.at("text_encoder_2.encoder.final_layer_norm"), Format::FP16);
}

TEST(T5Encoder, ClampRemedyKeepsTheOutputFiniteButNotRight) {
    const WeightMap w = overflowingWeightsT5();
    const auto ref = runT5("text_encoder_2=fp32", nullptr, w).at("out.last_hidden_state");
    ProbeContext clamped =
        contextFor("text_encoder_2=fp16,text_encoder_2=clamp", ProbeLevel::Layer);
    const auto out = runT5("", &clamped, w).at("out.last_hidden_state");
    // The overflow still happens (and is named) inside the feed-forward; the block's clamp
    // turns the Inf into +-64504, so the output is finite.
    ASSERT_TRUE(clamped.firstNonFinite().has_value());
    EXPECT_EQ(clamped.firstNonFinite()->at.name,
              "text_encoder_2.encoder.block.0.layer.1.DenseReluDense.wo");
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
    for (const auto& r : clamped.records())
        if (r.name == "text_encoder_2.encoder.block.0") {
            EXPECT_TRUE(r.stats.allFinite());
            EXPECT_LT(r.stats.absMax, kFp16Max);  // 64504 rounds to 64512 in fp16
        }
    const double e = relErr(out, ref);
    std::cout << "[ t5 fp16 ] clamp: relative error vs fp32 " << e << "\n";
    // A clamp rule outside the encoder changes nothing.
    const auto other =
        runT5("text_encoder_2=fp16,transformer=clamp", nullptr, w).at("out.last_hidden_state");
    EXPECT_FALSE(torch::isfinite(other).all().item<bool>());
}

}  // namespace
}  // namespace hs
