// diffusers SD3Transformer2DModel (Stable Diffusion 3 / 3.5), the checks every family runs on
// both goldens (SD3: plain blocks; SD3.5: dual attention in block 0 and RMS qk-norm): golden
// parity through the family registry, a streamed load, probe names, refused configs and inputs;
// then its configs, load errors and the released models' sizes. Its layers in another
// configuration are in test_sd3_layers.cpp, Stability AI's single-file layout in
// test_sd3_single_file.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "family_suites.h"
#include "golden_helpers.h"
#include "models/registry.h"
#include "families/sd3/sd3_transformer.h"
#include "test_util.h"

namespace hs {
namespace {

test::ModelCase goldenSd3(const std::string& label) {
    return openCase("golden/" + label, "golden/" + label + "_io.safetensors");
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// Both goldens at every probe level (probes change nothing); the module's parameters and
// buffers are the checkpoint's keys, no more, no fewer.
HS_CASES(SD3, FamilyGolden,
         test::familyGolden("golden/sd3", Role::Denoiser, "transformer",
                            {"in.hidden_states", "in.encoder_hidden_states",
                             "in.pooled_projections", "in.timestep", "out.sample"}),
         test::GoldenCase("golden/sd35")
             .at({ProbeLevel::Off, ProbeLevel::Layer, ProbeLevel::Op})
             .keyedAsTheFile());

// Blocks converted one at a time, as for a model larger than memory: bit for bit the whole load.
HS_CASES(SD3, FamilyStreaming, test::StreamingCase("golden/sd3", 2, {"", "transformer=fp16"}),
         test::StreamingCase("golden/sd35", 2, {"", "transformer=fp16"}));

// SD3.5's golden: block 0 has the dual attention and a text output, block 1 (the last) has
// neither. Layer level records exactly the Module and Layer points, once each, all finite:
// pos_embed, time_text_embed, context_embedder, norm_out, proj_out; block 0: itself, .context,
// norm1, norm1_context, attn, attn.to_add_out, attn2, ff, ff_context; block 1: itself, norm1,
// norm1_context, attn, ff. SD3's (no qk-norm, no dual attention): no norm_q, no attn2.
const std::string kBlock0Sd3 = "transformer.transformer_blocks.0";
const std::string kBlock1Sd3 = "transformer.transformer_blocks.1";
HS_CASES(
    SD3, FamilyProbes,
    test::ProbeCase(
        "sd35", [] { return goldenSd3("sd35"); },
        {test::ProbeExpectation(ProbeLevel::Op)
             .from("transformer.pos_embed.proj", "transformer.proj_out")
             .at(ProbeLevel::Module, "", {kBlock0Sd3, kBlock0Sd3 + ".context", kBlock1Sd3})
             .at(ProbeLevel::Module, "transformer", {"proj_out"})
             .at(ProbeLevel::Layer, "transformer",
                 {"pos_embed", "time_text_embed", "context_embedder", "norm_out"})
             .at(ProbeLevel::Layer, kBlock0Sd3,
                 {"norm1", "norm1_context", "attn", "attn.to_add_out", "attn2", "ff", "ff_context"})
             .at(ProbeLevel::Layer, kBlock1Sd3, {"norm1_context", "attn"})
             .at(ProbeLevel::Op, "transformer",
                 {"pos_embed.proj", "time_text_embed.time_proj",
                  "time_text_embed.timestep_embedder.act", "time_text_embed.text_embedder.act_1"})
             .at(ProbeLevel::Op, kBlock0Sd3,
                 {"norm1.modulated2", "attn.to_q", "attn.norm_q", "attn.norm_added_k",
                  "attn.add_v_proj", "attn.sdpa", "attn2.norm_k", "attn2.sdpa", "attn_residual",
                  "attn2_residual", "context_attn_residual", "ff.net.0", "norm2.modulated"})
             .at(ProbeLevel::Op, kBlock1Sd3, {"norm1_context.linear", "attn.add_q_proj"})
             .hasNot({kBlock1Sd3 + ".context", kBlock1Sd3 + ".attn.to_add_out",
                      kBlock1Sd3 + ".attn2", kBlock1Sd3 + ".ff_context",
                      kBlock1Sd3 + ".norm1.modulated2", kBlock1Sd3 + ".context_attn_residual"}),
         test::ProbeExpectation(ProbeLevel::Layer).eachOnce().distinctNames(5 + 9 + 5)}),
    test::ProbeCase("sd3", [] { return goldenSd3("sd3"); },
                    {test::ProbeExpectation(ProbeLevel::Op)
                         .has({kBlock0Sd3 + ".attn"})
                         .hasNot({kBlock0Sd3 + ".attn.norm_q", kBlock0Sd3 + ".attn2"})}));

HS_CASES(SD3, FamilyConfig,
         test::ConfigCase::ofFile<SD3Config>(
             "sd35", "golden/sd35/config.json",
             {test::setting("qk_norm", "layer_norm2"),
              test::setting("qk_norm",
                            "layer_norm"),  // diffusers has it; no SD3 model uses it
              test::setting("qk_norm", 1),
              test::setting("dual_attention_layers", {0, 2}),  // num_layers is 2
              test::setting("dual_attention_layers", {-1}),
              test::setting("dual_attention_layers", 0),
              test::setting("num_attention_heads", 0),
              test::setting("num_attention_heads", "4"),
              test::setting("attention_head_dim", 0),
              test::setting("attention_head_dim", 7),  // 4 x 7 = 28: no 2-D sin-cos table
              test::setting("caption_projection_dim", 48),
              test::setting("pos_embed_max_size", nullptr),
              test::setting("pos_embed_max_size", 100000),
              test::setting("num_layers", 0),
              test::setting("num_layers", 100000),
              test::setting("patch_size", 0),
              test::setting("sample_size", 0),
              test::setting("in_channels", -4),
              test::setting("out_channels", 0),
              test::setting("joint_attention_dim", 0),
              test::setting("pooled_projection_dim", 1.5)}));

HS_CASES(SD3, FamilyInputs,
         test::InputCase{
             "sd3",
             [] { return goldenSd3("sd3"); },
             {test::inputSet("in.hidden_states", torch::zeros({1, 16, 16, 16}),
                             {"in.hidden_states", "[B, 4, H, W]"}),
              test::inputSet("in.hidden_states", torch::zeros({1, 4, 97, 16}),  // > 96 patches
                             {"in.hidden_states", "96"}),
              test::inputSet("in.hidden_states", torch::zeros({1, 4, 16}), {"in.hidden_states"}),
              test::inputSet("in.encoder_hidden_states", torch::zeros({1, 12, 16}),
                             {"in.encoder_hidden_states", "[1, L_txt, 32]"}),
              test::inputSet("in.pooled_projections", torch::zeros({2, 64}),
                             {"in.pooled_projections", "[1, 64]"}),
              test::inputSet("in.timestep", torch::zeros({3}), {"in.timestep", "[1]"}),
              test::inputRemoved("in.timestep", {"in.timestep"}),
              test::inputSet("in.guidance", torch::zeros({1}), {"in.guidance"})}});

// ---- SD3's own ---------------------------------------------------------------------------------

TEST(SD3TransformerFamily, IsRegisteredAsTheDenoiser) {
    auto f = FamilyRegistry::global().require("SD3Transformer2DModel", "test");
    EXPECT_EQ(f->role, Role::Denoiser);
    EXPECT_EQ(f->defaultComponent, "transformer");
    EXPECT_EQ(f->blockStems, (std::vector<std::string>{"transformer_blocks."}));
}

TEST(SD3TransformerConfig, ReadsTheGoldenConfigs) {
    auto c = SD3Config::fromJson(readJson(dataPath("golden/sd3/config.json")));
    EXPECT_EQ(c.innerDim(), 32);
    EXPECT_EQ(c.baseSize(), 32);
    EXPECT_FALSE(c.qkRmsNorm);
    EXPECT_TRUE(c.dualAttentionLayers.empty());
    EXPECT_FALSE(c.contextPreOnly(0));
    EXPECT_TRUE(c.contextPreOnly(1));
    auto c35 = SD3Config::fromJson(readJson(dataPath("golden/sd35/config.json")));
    EXPECT_TRUE(c35.qkRmsNorm);
    EXPECT_TRUE(c35.dualAttention(0));
    EXPECT_FALSE(c35.dualAttention(1));
    // diffusers' defaults where the file says nothing; out_channels null means in_channels.
    auto d = SD3Config::fromJson({{"in_channels", 8}, {"out_channels", nullptr}});
    EXPECT_EQ(d.patchSize, 2);
    EXPECT_EQ(d.outChannels, 8);
    EXPECT_EQ(d.posEmbedMaxSize, 96);
}

HS_CASES(SD3, FamilyWeights,
         test::WeightCase{"sd35",
                          [] { return goldenSd3("sd35"); },
                          {test::weightRemoved("transformer_blocks.0.attn2.norm_q.weight"),
                           test::weightRemoved("pos_embed.pos_embed"),
                           test::weightSet("transformer_blocks.1.attn.to_add_out.weight",
                                           torch::zeros({32, 32})),  // last block
                           test::weightSet("transformer_blocks.1.norm1_context.linear.weight",
                                           torch::zeros({192, 32})),
                           // SD3's weights under SD3.5's config: block 0's norm1 has 6 chunks, not
                           // SD35AdaLayerNormZeroX's 9.
                           {[](test::ModelCase& c) { c.weights = goldenSd3("sd3").weights; },
                            {"transformer_blocks.0.norm1.linear.weight"}}}});

// SD3 medium, SD3.5 large and SD3.5 medium build on the meta device (no memory) with the
// parameter counts their names give (Stability's counts hold the positional table too, a
// parameter in their code and a buffer in diffusers': SD3.5 medium's 384^2 x 1536 = 0.23 B makes
// its 2.24 B the "2.5 B" of its name).
TEST(SD3Transformer, ReleasedConfigsBuildOnTheMetaDevice) {
    auto count = [](const nlohmann::json& config) {
        nn::MetaConstruction meta;
        SD3Transformer m(SD3Config::fromJson(config));
        EXPECT_TRUE(m->proj_out->weight.is_meta());
        EXPECT_TRUE(m->pos_embed->pos_embed.is_meta());
        return parameterCount(*m);
    };
    nlohmann::json medium = {{"sample_size", 128},
                             {"patch_size", 2},
                             {"in_channels", 16},
                             {"num_layers", 24},
                             {"attention_head_dim", 64},
                             {"num_attention_heads", 24},
                             {"joint_attention_dim", 4096},
                             {"caption_projection_dim", 1536},
                             {"pooled_projection_dim", 2048},
                             {"out_channels", 16},
                             {"pos_embed_max_size", 192}};
    nlohmann::json large = medium;
    large["num_layers"] = 38;
    large["num_attention_heads"] = 38;
    large["caption_projection_dim"] = 2432;
    large["qk_norm"] = "rms_norm";
    nlohmann::json medium35 = medium;
    medium35["pos_embed_max_size"] = 384;
    medium35["qk_norm"] = "rms_norm";
    medium35["dual_attention_layers"] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const int64_t n3 = count(medium), nl = count(large), n35 = count(medium35);
    std::printf("  SD3 medium %.3f B, SD3.5 large %.3f B, SD3.5 medium %.3f B parameters\n",
                n3 / 1e9, nl / 1e9, n35 / 1e9);
    EXPECT_GT(n3, 1.9e9);
    EXPECT_LT(n3, 2.2e9);
    EXPECT_GT(nl, 7.8e9);
    EXPECT_LT(nl, 8.4e9);
    EXPECT_GT(n35, 2.2e9);
    EXPECT_LT(n35, 2.3e9);
}

}  // namespace
}  // namespace hs
