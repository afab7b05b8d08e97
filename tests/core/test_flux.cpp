// diffusers FluxTransformer2DModel: golden parity, an unrelated config in bf16 / fp16, probe
// names, loading and input errors, the fp16 overflow that the studio must name, latent packing.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "models/flux/flux_latents.h"
#include "models/flux/flux_run.h"
#include "models/flux/flux_transformer.h"
#include "test_util.h"

namespace hs {
namespace {

// Shares nothing with the golden config: no guidance, 3 heads, 2 double + 3 single blocks.
nlohmann::json smallConfig() {
    return {{"_class_name", "FluxTransformer2DModel"},
            {"patch_size", 1},
            {"in_channels", 16},
            {"out_channels", nullptr},
            {"num_layers", 2},
            {"num_single_layers", 3},
            {"attention_head_dim", 16},
            {"num_attention_heads", 3},
            {"joint_attention_dim", 24},
            {"pooled_projection_dim", 20},
            {"guidance_embeds", false},
            {"axes_dims_rope", {4, 6, 6}}};
}

// Seeded random weights in checkpoint layout: default linears, norms around 1, small biases.
WeightMap randomWeightsFlux(const nlohmann::json& config, uint64_t seed = 5) {
    torch::manual_seed(seed);
    FluxTransformer m(FluxConfig::fromJson(config));
    nn::initialiseForTraining(*m);
    WeightMap w;
    for (auto& kv : stateOf(*m)) {
        torch::Tensor t = kv.second.detach().clone();
        if (kv.first.find(".norm_") != std::string::npos)
            t = 1 + 0.1 * torch::randn_like(t);
        else if (kv.first.size() > 5 && kv.first.substr(kv.first.size() - 5) == ".bias")
            t = 0.05 * torch::randn_like(t);
        w.emplace(kv.first, t);
    }
    return w;
}

// A batch of 2 with 4-channel 6 x 10 latents: packed into 3 x 5 = 15 tokens of 16 channels.
NamedTensors smallInputs(torch::Tensor* latents = nullptr) {
    torch::manual_seed(9);
    auto lat = torch::randn({2, 4, 6, 10});
    if (latents) *latents = lat;
    return {{"in.hidden_states", packLatents(lat)},
            {"in.encoder_hidden_states", torch::randn({2, 7, 24})},
            {"in.pooled_projections", torch::randn({2, 20})},
            {"in.timestep", torch::tensor({0.8f, 0.35f})},
            {"in.img_ids", prepareLatentImageIds(3, 5)},
            {"in.txt_ids", prepareTextIds(7)},
            {"out.sample", torch::zeros({1})}};  // not an input: ignored
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// The golden model with and without probes, its keys diffusers' own.
INSTANTIATE_TEST_SUITE_P(Flux, FamilyGolden,
                         ::testing::Values(test::GoldenCase("golden/flux")
                                               .at({ProbeLevel::Off, ProbeLevel::Op})
                                               .keyedAsTheFile()
                                               .ofFamily(Role::Denoiser, "transformer")),
                         test::CaseLabel());

// The double and the single block streamed.
INSTANTIATE_TEST_SUITE_P(Flux, FamilyStreaming,
                         ::testing::Values(test::StreamingCase("golden/flux", 2)),
                         test::CaseLabel());

std::map<std::string, ProbeLevel> probePointsFlux() {
    const std::string b1 = "transformer.transformer_blocks.1";
    const std::string s2 = "transformer.single_transformer_blocks.2";
    return {{b1, ProbeLevel::Module},
            {b1 + ".context", ProbeLevel::Module},
            {s2, ProbeLevel::Module},
            {"transformer.proj_out", ProbeLevel::Module},
            {"transformer.x_embedder", ProbeLevel::Layer},
            {"transformer.context_embedder", ProbeLevel::Layer},
            {"transformer.time_text_embed", ProbeLevel::Layer},
            {"transformer.norm_out", ProbeLevel::Layer},
            {b1 + ".norm1", ProbeLevel::Layer},
            {b1 + ".norm1_context", ProbeLevel::Layer},
            {b1 + ".attn", ProbeLevel::Layer},
            {b1 + ".attn.to_add_out", ProbeLevel::Layer},
            {b1 + ".ff", ProbeLevel::Layer},
            {b1 + ".ff_context", ProbeLevel::Layer},
            {s2 + ".attn", ProbeLevel::Layer},
            {s2 + ".norm", ProbeLevel::Layer},
            {s2 + ".proj_out", ProbeLevel::Layer},
            {s2 + ".act_mlp", ProbeLevel::Op},
            {b1 + ".attn.to_q", ProbeLevel::Op},
            {b1 + ".attn.norm_added_k", ProbeLevel::Op},
            {b1 + ".attn.rope_q", ProbeLevel::Op},
            {b1 + ".attn.sdpa", ProbeLevel::Op},
            {b1 + ".ff.net.0", ProbeLevel::Op},
            {b1 + ".attn_residual", ProbeLevel::Op},
            {b1 + ".norm2.modulated", ProbeLevel::Op},
            {s2 + ".proj_mlp", ProbeLevel::Op},
            {s2 + ".gated", ProbeLevel::Op},
            {"transformer.time_text_embed.timestep", ProbeLevel::Op}};
}

// No guidance point (guidance_embeds false); Layer level records exactly the Module and Layer
// points, once each: top level, double, single, proj_out.
INSTANTIATE_TEST_SUITE_P(
    Flux, FamilyProbes,
    ::testing::Values(test::ProbeCase("small",
                                      [] {
                                          return test::ModelCase{
                                              "FluxTransformer2DModel", smallConfig(),
                                              randomWeightsFlux(smallConfig()), smallInputs()};
                                      },
                                      {test::ProbeExpectation(ProbeLevel::Op)
                                           .at(probePointsFlux())
                                           .hasNot({"transformer.time_text_embed.guidance"}),
                                       test::ProbeExpectation(ProbeLevel::Layer)
                                           .eachOnce()
                                           .distinctNames(4 + 2 * 8 + 3 * 4 + 1)})),
    test::CaseLabel());

INSTANTIATE_TEST_SUITE_P(Flux, FamilyConfig,
                         ::testing::Values(test::ConfigCase{
                             "small",
                             smallConfig,
                             [](const nlohmann::json& j) { FluxConfig::fromJson(j); },
                             {test::setting("axes_dims_rope", {4, 4, 4}),
                              test::setting("num_attention_heads", "3")}}),
                         test::CaseLabel());

INSTANTIATE_TEST_SUITE_P(
    Flux, FamilyInputs,
    ::testing::Values(test::InputCase{
        "golden",
        [] { return openCase("golden/flux", "golden/flux_io.safetensors"); },
        {test::inputRemoved("in.guidance", {"in.guidance", "[B] = [1]"}),  // guidance_embeds
         test::inputSet("in.hidden_states", torch::zeros({1, 16, 5}),
                        {"in.hidden_states", "[B, L_img, 4]"}),
         test::inputSet("in.img_ids", torch::zeros({15, 3}), {"in.img_ids", "[16, 3]"}),
         test::inputSet("in.encoder_hidden_states", torch::zeros({2, 12, 32}),
                        {"in.encoder_hidden_states", "[1, L_txt, 32]"}),
         test::inputSet("in.timesteps", torch::zeros({1}), {"in.timesteps"})}}),
    test::CaseLabel());

// ---- FLUX's own ---------------------------------------------------------------------------------

TEST(FluxConfig, ReadsGoldenConfig) {
    auto c = FluxConfig::fromJson(readJson(dataPath("golden/flux/config.json")));
    EXPECT_EQ(c.innerDim(), 32);
    EXPECT_EQ(c.outChannels, 4);  // null -> in_channels
    EXPECT_TRUE(c.guidanceEmbeds);
    EXPECT_EQ(c.axesDimsRope, (std::vector<int>{4, 4, 8}));
}

TEST(Flux, ArbitraryConfigShapesAndReducedPrecisionAgreement) {
    const auto config = smallConfig();
    const auto weights = randomWeightsFlux(config);
    EXPECT_FALSE(weights.count("time_text_embed.guidance_embedder.linear_1.weight"));
    EXPECT_TRUE(weights.count("single_transformer_blocks.2.attn.norm_k.weight"));
    torch::Tensor latents;
    const NamedTensors in = smallInputs(&latents);
    ProbeContext p32 = contextFor("");
    auto m32 = loadFluxTransformer(config, weights, p32.policy());
    auto o32 = runFluxTransformer(m32, in, p32).at("out.sample");
    ASSERT_EQ(o32.sizes(), (std::vector<int64_t>{2, 15, 16}));
    EXPECT_EQ(unpackLatents(o32, 6, 10).sizes(), latents.sizes());
    EXPECT_TRUE(torch::isfinite(o32).all().item<bool>());
    // The two batch entries differ in timestep and inputs, so their outputs must differ too.
    EXPECT_GT((o32[0] - o32[1]).abs().max().item<double>(), 1e-3);
    // Legacy batched ids give the same result.
    NamedTensors legacy = in;
    legacy["in.img_ids"] = in.at("in.img_ids").unsqueeze(0).expand({2, 15, 3});
    legacy["in.txt_ids"] = in.at("in.txt_ids").unsqueeze(0).expand({2, 7, 3});
    EXPECT_TRUE(torch::equal(runFluxTransformer(m32, legacy, p32).at("out.sample"), o32));

    struct Case {
        const char* plan;
        double tol;
    };
    std::map<CpuBf16, torch::Tensor> bf16ByMode;
    for (CpuBf16 mode : test::bf16ModesHere()) {
        test::ScopedCpuBf16 scoped(mode);
        for (const Case& c :
             {Case{"transformer=bf16", 5e-2}, Case{"transformer=fp16", 1e-2},
              Case{"transformer=bf16,transformer.single_transformer_blocks.1=fp32", 5e-2}}) {
            ProbeContext p = contextFor(c.plan);
            auto m = loadFluxTransformer(config, weights, p.policy());
            auto o = runFluxTransformer(m, in, p).at("out.sample");
            EXPECT_EQ(o.scalar_type(), torch::kFloat);
            const double err = relErr(o, o32);
            std::printf("  bf16 %-8s %-60s vs fp32: rel err %.3e\n", cpuBf16Name(mode).c_str(),
                        c.plan, err);
            EXPECT_LT(err, c.tol) << c.plan;
            EXPECT_GT(err, 0.0) << c.plan;  // the reduced format really ran
            if (std::string(c.plan) == "transformer=bf16") bf16ByMode[mode] = o;
        }
        ProbeContext pbf = contextFor("transformer=bf16");
        auto mbf = loadFluxTransformer(config, weights, pbf.policy());
        EXPECT_EQ(mbf->named_parameters()["transformer_blocks.0.attn.to_q.weight"].scalar_type(),
                  mode == CpuBf16::Native ? torch::kBFloat16 : torch::kFloat);
    }
    if (bf16ByMode.size() == 2) {
        const double err = relErr(bf16ByMode[CpuBf16::Native], bf16ByMode[CpuBf16::Emulated]);
        std::printf("  bf16 native vs emulated: rel err %.3e\n", err);
        EXPECT_LT(err, 5e-2);
    }
}

TEST(Flux, LoadErrorsNameTheKey) {
    const auto config = smallConfig();
    const auto good = randomWeightsFlux(config);
    ProbeContext probes = contextFor("");
    auto expectError = [&](const WeightMap& w, const std::string& key) {
        try {
            loadFluxTransformer(config, w, probes.policy());
            ADD_FAILURE() << "no WeightError for " << key;
        } catch (const WeightError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    };
    auto w = good;
    w.erase("transformer_blocks.1.attn.norm_added_q.weight");
    expectError(w, "transformer_blocks.1.attn.norm_added_q.weight");
    w = good;
    w["single_transformer_blocks.0.proj_out.weight"] = torch::zeros({48, 200});
    expectError(w, "single_transformer_blocks.0.proj_out.weight");
    w = good;
    w["time_text_embed.guidance_embedder.linear_1.weight"] = torch::zeros({48, 256});
    expectError(w, "time_text_embed.guidance_embedder.linear_1.weight");
}

// The product's core case: a block whose residual stream passes 65504 in fp16.
TEST(Flux, Fp16OverflowIsNamedInsideTheBlock) {
    const auto config = smallConfig();
    auto weights = randomWeightsFlux(config);
    // x8e5 keeps every weight finite in fp16 (|w| <= 8e5 / sqrt(192) = 5.8e4 < 65504): what
    // overflows is the activations, as in the real failure.
    weights["transformer_blocks.1.ff.net.2.weight"] *= 8e5;
    const NamedTensors in = smallInputs();
    const std::string block = "transformer.transformer_blocks.1";

    // fp32 reference: finite, but the block's image stream really exceeds the fp16 range.
    ProbeContext p32 = contextFor("", ProbeLevel::Module);
    auto m32 = loadFluxTransformer(config, weights, p32.policy());
    EXPECT_TRUE(
        torch::isfinite(runFluxTransformer(m32, in, p32).at("out.sample")).all().item<bool>());
    EXPECT_FALSE(p32.firstNonFinite().has_value());
    double streamMax = 0;
    for (const auto& r : p32.records())
        if (r.name == block) streamMax = r.stats.absMax;
    std::printf("  fp32: max |%s| = %.4g\n", block.c_str(), streamMax);
    EXPECT_GT(streamMax, kFp16Max);

    for (ProbeLevel level : {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module}) {
        ProbeContext p16 = contextFor("transformer=fp16", level);
        auto m16 = loadFluxTransformer(config, weights, p16.policy());
        EXPECT_TRUE(torch::isfinite(m16->named_parameters()["transformer_blocks.1.ff.net.2.weight"])
                        .all()
                        .item<bool>());
        runFluxTransformer(m16, in, p16);
        const auto& first = p16.firstNonFinite();
        ASSERT_TRUE(first.has_value()) << probeLevelName(level);
        std::printf("  fp16, probes %-6s: first non-finite at %s\n", probeLevelName(level).c_str(),
                    first->at.name.c_str());
        EXPECT_TRUE(first->at.name == block || first->at.name.rfind(block + ".", 0) == 0)
            << first->at.name;
        EXPECT_EQ(first->at.execution, Execution::Emulated);
        if (level == ProbeLevel::Module) EXPECT_EQ(first->at.name, block);
    }
}

// diffusers clips fp16 residual streams to +-65504; the probe still shows the Inf before it.
TEST(Flux, Fp16ClipIsRecordedBeforeItApplies) {
    const auto config = smallConfig();
    auto weights = randomWeightsFlux(config);
    weights["single_transformer_blocks.1.proj_out.weight"] *= 3e5;
    weights["single_transformer_blocks.1.proj_out.bias"] *= 3e5;
    ProbeContext p16 = contextFor("transformer=fp16", ProbeLevel::Op);
    auto m16 = loadFluxTransformer(config, weights, p16.policy());
    runFluxTransformer(m16, smallInputs(), p16);
    const std::string block = "transformer.single_transformer_blocks.1";
    const auto& first = p16.firstNonFinite();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->at.name.rfind(block, 0), 0u) << first->at.name;
    int checked = 0;
    for (const auto& r : p16.records()) {
        checked += r.name == block || r.name == "transformer.single_transformer_blocks.2.norm.norm";
        if (r.name == block) {  // pre-clip: Inf, and no NaN
            EXPECT_GT(r.stats.posInf + r.stats.negInf, 0);
            EXPECT_EQ(r.stats.nan, 0);
        }
        // After the clip the next block reads +-65504, not Inf: its LayerNorm stays finite.
        if (r.name == "transformer.single_transformer_blocks.2.norm.norm")
            EXPECT_TRUE(r.stats.allFinite());
    }
    EXPECT_EQ(checked, 2);
}

TEST(FluxLatents, PackUnpackAndIdsFollowThePipeline) {
    auto lat = torch::arange(2 * 3 * 4 * 6, torch::kFloat32).reshape({2, 3, 4, 6});
    auto packed = packLatents(lat);  // [2, 2 * 3, 12]
    ASSERT_EQ(packed.sizes(), (std::vector<int64_t>{2, 6, 12}));
    // token (i, j) of the 2 x 3 grid, feature c * 4 + dy * 2 + dx
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j)
            for (int64_t c = 0; c < 3; ++c)
                for (int64_t d = 0; d < 4; ++d)
                    ASSERT_EQ(packed[1][i * 3 + j][c * 4 + d].item<float>(),
                              lat[1][c][2 * i + d / 2][2 * j + d % 2].item<float>());
    EXPECT_TRUE(torch::equal(unpackLatents(packed, 4, 6), lat));
    auto ids = prepareLatentImageIds(2, 3);
    ASSERT_EQ(ids.sizes(), (std::vector<int64_t>{6, 3}));
    EXPECT_TRUE(torch::equal(ids[4], torch::tensor({0.f, 1.f, 1.f})));
    EXPECT_TRUE(torch::equal(ids[2], torch::tensor({0.f, 0.f, 2.f})));
    EXPECT_EQ(prepareTextIds(5).abs().sum().item<float>(), 0.f);
    EXPECT_THROW(packLatents(torch::zeros({1, 4, 5, 6})), InputError);
    EXPECT_THROW(unpackLatents(packed, 4, 8), InputError);
}

}  // namespace
}  // namespace hs
