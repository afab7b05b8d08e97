// diffusers FluxTransformer2DModel: golden parity, an unrelated config in bf16 / fp16, probe
// names, loading and input errors, the fp16 overflow that the studio must name, latent packing.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "family_suites.h"
#include "flux1_fixture.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "families/flux/flux_latents.h"
#include "families/flux/flux_run.h"
#include "families/flux/flux_transformer.h"
#include "test_util.h"

namespace hs {
namespace {

// Shares nothing with the golden config: no guidance, 3 heads, 2 double + 3 single blocks.
nlohmann::json smallConfig() {
    return test::smallFluxTransformerConfig(2, 3, 3);
}

WeightMap randomWeightsFlux(const nlohmann::json& config, uint64_t seed = 5) {
    return test::randomCheckpoint(
        seed, [&] { return FluxTransformer(FluxConfig::fromJson(config)); },
        [](const std::string& k) { return k.find(".norm_") != std::string::npos; });
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
HS_CASES(Flux, FamilyGolden,
         test::GoldenCase("golden/flux")
             .at({ProbeLevel::Off, ProbeLevel::Op})
             .keyedAsTheFile()
             .ofFamily(Role::Denoiser, "transformer"));

// The double and the single block streamed.
HS_CASES(Flux, FamilyStreaming, test::StreamingCase("golden/flux", 2));

// No guidance point (guidance_embeds false); Layer level records exactly the Module and Layer
// points, once each: top level, double, single, proj_out.
const std::string kDoubleFlux = "transformer.transformer_blocks.1";
const std::string kSingleFlux = "transformer.single_transformer_blocks.2";
HS_CASES(Flux, FamilyProbes,
         test::ProbeCase(
             "small",
             [] {
                 return test::ModelCase{"FluxTransformer2DModel", smallConfig(),
                                        randomWeightsFlux(smallConfig()), smallInputs()};
             },
             {test::ProbeExpectation(ProbeLevel::Op)
                  .at(ProbeLevel::Module, "", {kDoubleFlux, kDoubleFlux + ".context", kSingleFlux})
                  .at(ProbeLevel::Module, "transformer", {"proj_out"})
                  .at(ProbeLevel::Layer, "transformer",
                      {"x_embedder", "context_embedder", "time_text_embed", "norm_out"})
                  .at(ProbeLevel::Layer, kDoubleFlux,
                      {"norm1", "norm1_context", "attn", "attn.to_add_out", "ff", "ff_context"})
                  .at(ProbeLevel::Layer, kSingleFlux, {"attn", "norm", "proj_out"})
                  .at(ProbeLevel::Op, kSingleFlux, {"act_mlp", "proj_mlp", "gated"})
                  .at(ProbeLevel::Op, kDoubleFlux,
                      {"attn.to_q", "attn.norm_added_k", "attn.rope_q", "attn.sdpa", "ff.net.0",
                       "attn_residual", "norm2.modulated"})
                  .at(ProbeLevel::Op, "transformer", {"time_text_embed.timestep"})
                  .hasNot({"transformer.time_text_embed.guidance"}),
              test::ProbeExpectation(ProbeLevel::Layer)
                  .eachOnce()
                  .distinctNames(4 + 2 * 8 + 3 * 4 + 1)}));

HS_CASES(Flux, FamilyConfig,
         test::ConfigCase{"small",
                          smallConfig,
                          [](const nlohmann::json& j) { FluxConfig::fromJson(j); },
                          {test::setting("axes_dims_rope", {4, 4, 4}),
                           test::setting("num_attention_heads", "3")}});

HS_CASES(Flux, FamilyInputs,
         test::InputCase{
             "golden",
             [] { return openCase("golden/flux", "golden/flux_io.safetensors"); },
             {test::inputRemoved("in.guidance", {"in.guidance", "[B] = [1]"}),  // guidance_embeds
              test::inputSet("in.hidden_states", torch::zeros({1, 16, 5}),
                             {"in.hidden_states", "[B, L_img, 4]"}),
              test::inputSet("in.img_ids", torch::zeros({15, 3}), {"in.img_ids", "[16, 3]"}),
              test::inputSet("in.encoder_hidden_states", torch::zeros({2, 12, 32}),
                             {"in.encoder_hidden_states", "[1, L_txt, 32]"}),
              test::inputSet("in.timesteps", torch::zeros({1}), {"in.timesteps"})}});

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

    auto bf16ByMode = test::expectReducedPrecisionAgrees(
        [&](const std::string& plan) {
            ProbeContext p = contextFor(plan);
            auto m = loadFluxTransformer(config, weights, p.policy());
            return runFluxTransformer(m, in, p).at("out.sample");
        },
        o32,
        {{"transformer=bf16", 5e-2},
         {"transformer=fp16", 1e-2},
         {"transformer=bf16,transformer.single_transformer_blocks.1=fp32", 5e-2}});
    for (CpuBf16 mode : test::bf16ModesHere()) {
        test::ScopedCpuBf16 scoped(mode);
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

HS_CASES(Flux, FamilyWeights,
         test::WeightCase{
             "small",
             [] {
                 return test::ModelCase{
                     "FluxTransformer2DModel", smallConfig(), randomWeightsFlux(smallConfig()), {}};
             },
             {test::weightRemoved("transformer_blocks.1.attn.norm_added_q.weight"),
              test::weightSet("single_transformer_blocks.0.proj_out.weight",
                              torch::zeros({48, 200})),
              test::weightSet("time_text_embed.guidance_embedder.linear_1.weight",
                              torch::zeros({48, 256}))}});

// The product's core case: a block whose residual stream passes 65504 in fp16.
TEST(Flux, Fp16OverflowIsNamedInsideTheBlock) {
    const auto config = smallConfig();
    auto weights = randomWeightsFlux(config);
    // x8e5 keeps every weight finite in fp16 (|w| <= 8e5 / sqrt(192) = 5.8e4 < 65504): what
    // overflows is the activations, as in the real failure.
    weights["transformer_blocks.1.ff.net.2.weight"] *= 8e5;
    const std::string block = "transformer.transformer_blocks.1";
    // fp32 reference: finite, but the block's image stream really exceeds the fp16 range.
    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) {
             return loadComponent(
                 *FamilyRegistry::global().require("FluxTransformer2DModel", "test"),
                 {"small", config, weights}, p.policy(), "transformer");
         },
         smallInputs(), "transformer=fp16", block, block, ProbeLevel::Module},
        {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module},
        [&](ProbeLevel level, const FirstNonFinite& first, Component&, ProbeContext&) {
            if (level == ProbeLevel::Module) EXPECT_EQ(first.at.name, block);
        });
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
