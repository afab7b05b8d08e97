// diffusers UNet2DConditionModel (SD 1.x / 2.x / SDXL): config, golden parity through the family
// and run-module's code path, SD 2.x- and SDXL-shaped parity, fp16 emulation, probe names, the
// fp16 overflow named inside the UNet, load and input errors.
//
// Test data (tests/data/unet/):
//   golden/, golden_io.safetensors: shared/golden/unet made by diffusers (SD 1.x-shaped).
//   sd2_tiny/, sdxl_tiny/ and their _io.safetensors: random weights and the outputs of the
//   plain-PyTorch port bench/reference/unet_reference.py (checked against the golden output to
//   8e-7 first), made with
//     /usr/bin/python3 bench/reference/unet_reference.py make-tests tests/data/unet
//   sd2_tiny: linear projections, attention_head_dim [2, 4], upcast_attention, 4 groups.
//   sdxl_tiny: three levels, transformer_layers_per_block [1, 1, 2], text_time conditioning.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "diagnosis/blocks.h"
#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "models/run_component.h"
#include "families/unet/unet_family.h"
#include "test_util.h"

namespace hs {
namespace {

// A case of tests/data/unet: its config, its weights (copied out of the mapped file) and io.
using CaseUnet = test::ModelCase;

CaseUnet loadCaseUnet(const std::string& name) {
    return test::openCase("unet/" + name, "unet/" + name + "_io.safetensors", true);
}

NamedTensors inputsOfUnet(const NamedTensors& io) {
    return test::onlyInputs(io);
}

// Loaded through the registered family, as run-module and the pipeline load it.
std::shared_ptr<Component> loadThroughFamilyUnet(const CaseUnet& c, const PrecisionPolicy& policy,
                                                 const std::string& component = "unet") {
    auto family = FamilyRegistry::global().require("UNet2DConditionModel", "test");
    EXPECT_EQ(family->role, Role::Denoiser);
    EXPECT_EQ(family->defaultComponent, "unet");
    return loadComponent(*family, {"test", c.config, c.weights}, policy, component);
}

UNet2DConditionModel& modelOf(Component& c) {
    return dynamic_cast<UNet2DConditionComponent&>(c).model;
}

double compareOut(const NamedTensors& out, const NamedTensors& io, const char* label) {
    return test::compareOutput(out, io, "out.sample", label);
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// The golden UNet (SD 1.x-shaped, diffusers' own output); SD 2.x-shaped (linear projections,
// upcast attention) and SDXL-shaped (text_time conditioning) against the port.
HS_CASES(Unet, FamilyGolden,
         test::GoldenCase("unet/golden").ofFamily(Role::Denoiser, "unet").copied(),
         test::GoldenCase("unet/sd2_tiny").copied(), test::GoldenCase("unet/sdxl_tiny").copied());

const std::string kTransformerUnet = "denoiser.up_blocks.1.attentions.0.transformer_blocks.0";

// The probe points carry the checkpoint's paths under the component's name; no point of this
// small model is recorded twice (no chunked scores).
HS_CASES(Unet, FamilyProbes,
         test::ProbeCase(
             "sdxl_tiny", [] { return loadCaseUnet("sdxl_tiny"); },
             {test::ProbeExpectation(ProbeLevel::Module)
                  .inOrder({"denoiser.time_embedding", "denoiser.add_embedding", "denoiser.conv_in",
                            "denoiser.down_blocks.0", "denoiser.down_blocks.1",
                            "denoiser.down_blocks.2", "denoiser.mid_block", "denoiser.up_blocks.0",
                            "denoiser.up_blocks.1", "denoiser.up_blocks.2", "denoiser.conv_out"}),
              test::ProbeExpectation(ProbeLevel::Layer)
                  .has({"denoiser.down_blocks.0.resnets.0", "denoiser.down_blocks.0.downsamplers.0",
                        "denoiser.down_blocks.2.attentions.0.transformer_blocks.1",
                        "denoiser.mid_block.attentions.0", "denoiser.mid_block.resnets.1",
                        "denoiser.up_blocks.0.attentions.1.transformer_blocks.1",
                        "denoiser.up_blocks.1.upsamplers.0", "denoiser.conv_norm_out"})
                  .hasNot({"denoiser.down_blocks.2.downsamplers.0",  // the last level has none
                           "denoiser.up_blocks.2.upsamplers.0",
                           "denoiser.down_blocks.0.attentions.0",   // DownBlock2D
                           "denoiser.mid_block.resnets.0.conv1"}),  // Op granularity
              test::ProbeExpectation(ProbeLevel::Op)
                  .has({"denoiser.time_proj",
                        "denoiser.time_embedding.linear_1",
                        "denoiser.add_time_proj",
                        "denoiser.add_embedding.act",
                        "denoiser.time_embedding.sum",
                        "denoiser.down_blocks.1.resnets.0.conv_shortcut",
                        "denoiser.down_blocks.1.resnets.0.time_emb_proj",
                        "denoiser.down_blocks.1.attentions.0.proj_in",
                        kTransformerUnet + ".norm1",
                        kTransformerUnet + ".attn1.to_q",
                        kTransformerUnet + ".attn1.scores",
                        kTransformerUnet + ".attn1.probs",
                        kTransformerUnet + ".attn1.sdpa",
                        kTransformerUnet + ".attn1.to_out.0",
                        kTransformerUnet + ".attn1_residual",
                        kTransformerUnet + ".attn2.to_k",
                        kTransformerUnet + ".attn2_residual",
                        kTransformerUnet + ".ff.net.0.proj",
                        kTransformerUnet + ".ff.net.0.gelu",
                        kTransformerUnet + ".ff.net.0",
                        kTransformerUnet + ".ff.net.2",
                        "denoiser.conv_act"})
                  .eachOnce()},
             "denoiser"));

HS_CASES(Unet, FamilyConfig,
         test::ConfigCase{
             "sdxl_tiny",
             [] { return readJson(dataPath("unet/sdxl_tiny/config.json")); },
             [](const nlohmann::json& j) { unetConfigFromJson(j); },
             {test::setting("class_embed_type", "timestep"),
              test::setting("num_class_embeds", 10),
              test::setting("attention_type", "gated"),
              test::setting("dual_cross_attention", true),
              test::setting("resnet_time_scale_shift", "scale_shift"),
              test::setting("time_embedding_type", "fourier"),
              test::setting("time_embedding_act_fn", "silu"),
              test::setting("timestep_post_act", "silu"),
              test::setting("time_cond_proj_dim", 256),
              test::setting("addition_embed_type", "text"),
              test::setting("encoder_hid_dim", 768),
              test::setting("encoder_hid_dim_type", "text_proj"),
              test::setting("conv_in_kernel", 1),
              test::setting("conv_out_kernel", 5),
              test::setting("only_cross_attention", {false, true, false}),
              test::setting("class_embeddings_concat", true),
              test::setting("act_fn", "gelu"),
              test::setting("mid_block_type", "UNetMidBlock2DSimpleCrossAttn"),
              test::setting("down_block_types",
                            {"DownBlock2D", "AttnDownBlock2D", "CrossAttnDownBlock2D"},
                            "down_block_types[1]"),
              test::setting("up_block_types", {"CrossAttnUpBlock2D", "UpBlock2D"}),
              test::setting("block_out_channels", {8, 18, 16}, "block_out_channels[1]"),
              test::setting("attention_head_dim", {1, 3, 2}, "attention_head_dim[1]"),
              test::setting("num_attention_heads", {1, 2, 3}, "num_attention_heads[2]"),
              test::setting("cross_attention_dim", {24, 24, 32}, "cross_attention_dim[2]"),
              test::setting("layers_per_block", {1, 1}),
              test::setting("layers_per_block", 100000),
              test::setting("transformer_layers_per_block", {{1}, {1}, {2}},
                            "reverse_transformer_layers_per_block"),
              test::setting("addition_time_embed_dim", nullptr),
              test::setting("projection_class_embeddings_input_dim", "64"),
              test::setting("norm_num_groups", nullptr),
              test::setting("_class_name", "UNet2DModel")}});

HS_CASES(
    Unet, FamilyInputs,
    test::InputCase{
        "sdxl_tiny",
        [] { return loadCaseUnet("sdxl_tiny"); },
        {test::inputSet("in.sample", torch::zeros({2, 3, 8, 8}), {"in.sample", "[B, 4, h, w]"}),
         test::inputRemoved("in.encoder_hidden_states", {"in.encoder_hidden_states", "[B, L, 24]"}),
         test::inputSet("in.encoder_hidden_states", torch::zeros({2, 7, 32}),
                        {"in.encoder_hidden_states", "[2, L, 24]"}),
         test::inputSet("in.timestep", torch::zeros({3}), {"in.timestep", "[2]"}),
         test::inputRemoved("in.time_ids", {"in.time_ids", "[B, 6]"}),
         test::inputSet("in.text_embeds", torch::zeros({2, 20}), {"in.text_embeds", "[2, 16]"}),
         {[](NamedTensors& in) {
              in["in.added_cond_kwargs.text_embeds"] = in.at("in.text_embeds");
          },
          {"in.text_embeds", "in.added_cond_kwargs.text_embeds"}},
         test::inputSet("in.class_labels", torch::zeros({2}),
                        {"in.class_labels", "in.time_ids"})}});

// ---- config -------------------------------------------------------------------------------

TEST(UnetConfig, ReadsSd1Sd2AndSdxlShapes) {
    auto g = unetConfigFromJson(readJson(dataPath("unet/golden/config.json")));
    EXPECT_EQ(g.blockOutChannels, (std::vector<int>{32, 64}));
    EXPECT_EQ(g.numAttentionHeads, (std::vector<int>{8, 8}));  // attention_head_dim 8 = heads
    EXPECT_EQ(g.crossAttentionDim, (std::vector<int>{32, 32}));
    EXPECT_EQ(g.layersPerBlock, (std::vector<int>{2, 2}));
    EXPECT_EQ(g.downTransformerLayers, (std::vector<std::vector<int>>{{1, 1}, {1, 1}}));
    EXPECT_EQ(g.upTransformerLayers, (std::vector<std::vector<int>>{{1, 1, 1}, {1, 1, 1}}));
    EXPECT_EQ(g.downFactor(), 2);
    EXPECT_EQ(g.contextDim(), 32);
    EXPECT_EQ(g.timeEmbedDim(), 128);
    EXPECT_TRUE(g.hasMidBlock());
    EXPECT_FALSE(g.useLinearProjection || g.upcastAttention);
    EXPECT_EQ(g.additionEmbedType, "");

    auto s2 = unetConfigFromJson(readJson(dataPath("unet/sd2_tiny/config.json")));
    EXPECT_EQ(s2.numAttentionHeads, (std::vector<int>{2, 4}));
    EXPECT_TRUE(s2.useLinearProjection && s2.upcastAttention);
    EXPECT_EQ(s2.contextDim(), 24);

    auto xl = unetConfigFromJson(readJson(dataPath("unet/sdxl_tiny/config.json")));
    EXPECT_EQ(xl.additionEmbedType, "text_time");
    EXPECT_EQ(xl.additionTimeEmbedDim, 8);
    EXPECT_EQ(xl.projectionClassEmbeddingsInputDim, 64);
    EXPECT_EQ(xl.downFactor(), 4);
    EXPECT_EQ(xl.timeEmbedDim(), 40);
    EXPECT_EQ(xl.downTransformerLayers, (std::vector<std::vector<int>>{{1}, {1}, {2}}));
    EXPECT_EQ(xl.midTransformerLayers, 2);
    // Up blocks read transformer_layers_per_block reversed, one entry per resnet.
    EXPECT_EQ(xl.upTransformerLayers, (std::vector<std::vector<int>>{{2, 2}, {1, 1}, {1, 1}}));

    // An asymmetric UNet: per-resnet lists with reverse_transformer_layers_per_block;
    // num_attention_heads, when given, wins over attention_head_dim; mid_block_type null.
    auto j = readJson(dataPath("unet/sdxl_tiny/config.json"));
    j["transformer_layers_per_block"] = {{0}, {1}, {3}};
    j["reverse_transformer_layers_per_block"] = {{3, 2}, {1, 0}, {0, 0}};
    j["num_attention_heads"] = {2, 4, 4};
    j["mid_block_type"] = nullptr;
    j["layers_per_block"] = {1, 1, 1};
    auto a = unetConfigFromJson(j);
    EXPECT_EQ(a.upTransformerLayers, (std::vector<std::vector<int>>{{3, 2}, {1, 0}, {0, 0}}));
    EXPECT_EQ(a.midTransformerLayers, 3);
    EXPECT_EQ(a.numAttentionHeads, (std::vector<int>{2, 4, 4}));
    EXPECT_FALSE(a.hasMidBlock());
}

// ---- parity -------------------------------------------------------------------------------

// diffusers takes integer timesteps; the module API with float ones gives the same numbers.
TEST(Unet, FloatTimestepsThroughTheModuleGiveTheSameNumbers) {
    const CaseUnet c = loadCaseUnet("golden");
    ProbeContext probes = contextFor("");
    auto comp = loadThroughFamilyUnet(c, probes.policy());
    const NamedTensors in = inputsOfUnet(c.io);
    EXPECT_EQ(in.at("in.timestep").scalar_type(), torch::kLong);
    const auto out = comp->run(in, probes);
    UNetInputs u;
    u.sample = in.at("in.sample");
    u.timestep = in.at("in.timestep").to(torch::kFloat32);
    u.encoderHiddenStates = in.at("in.encoder_hidden_states");
    torch::NoGradGuard noGrad;
    auto y = modelOf(*comp)->forward(u, probes);  // [2, 4, 16, 16]
    EXPECT_TRUE(torch::equal(y, out.at("out.sample")));
}

TEST(Unet, GoldenParityThroughRunModule) {
    ComponentRunOptions o;
    o.level = ProbeLevel::Module;
    const NamedTensors io = readIo("unet/golden_io.safetensors");
    ComponentRun r = runComponentFolder(dataPath("unet/golden"), inputsOfUnet(io), o);
    EXPECT_EQ(r.className, "UNet2DConditionModel");
    EXPECT_EQ(r.component, "unet");
    EXPECT_FALSE(r.firstNonFinite.has_value());
    EXPECT_LE(compareOut(r.outputs, io, "golden via run-module"), 1e-4);
}

// SD 2.x's linear projections: proj_in is a [C, C] matrix, not a 1x1 conv.
TEST(Unet, Sd2ShapedProjectionsAreLinear) {
    const CaseUnet c = loadCaseUnet("sd2_tiny");
    EXPECT_EQ(c.weights.at("down_blocks.0.attentions.0.proj_in.weight").dim(), 2);
}

TEST(Unet, SdxlTakesTheAddedConditionsByEitherName) {
    const CaseUnet c = loadCaseUnet("sdxl_tiny");
    ProbeContext probes = contextFor("");
    auto comp = loadThroughFamilyUnet(c, probes.policy());
    const NamedTensors in = inputsOfUnet(c.io);
    ASSERT_EQ(in.at("in.timestep").numel(), 1);  // one timestep for the batch
    const auto out = comp->run(in, probes);
    // added_cond_kwargs names and a 0-d timestep are the same inputs.
    NamedTensors alias{{"in.sample", in.at("in.sample")},
                       {"in.timestep", in.at("in.timestep").reshape({})},
                       {"in.encoder_hidden_states", in.at("in.encoder_hidden_states")},
                       {"in.added_cond_kwargs.text_embeds", in.at("in.text_embeds")},
                       {"in.added_cond_kwargs.time_ids", in.at("in.time_ids")}};
    EXPECT_TRUE(torch::equal(comp->run(alias, probes).at("out.sample"), out.at("out.sample")));
    // The time ids matter: another crop gives another output.
    alias["in.added_cond_kwargs.time_ids"] = in.at("in.time_ids") + 16;
    EXPECT_GT(relErr(comp->run(alias, probes).at("out.sample"), out.at("out.sample")), 1e-3);
}

// Latent sizes the down path halves unevenly (5 x 7 with two downsamplings: 3 x 4, then 2 x 2)
// upsample to the skips' sizes, as diffusers' forward_upsample_size does. Reference outputs from
// bench/reference/unet_reference.py (its upsample follows the same rule; the even cases above
// check the port).
TEST(Unet, OddLatentSizesUpsampleToTheSkipSizes) {
    for (const char* name : {"sd2_tiny", "sdxl_tiny"}) {
        const CaseUnet c = loadCaseUnet(name);
        const NamedTensors io = readIo(std::string("unet/") + name + "_odd_io.safetensors");
        ProbeContext probes = contextFor("");
        auto comp = loadThroughFamilyUnet(c, probes.policy());
        ASSERT_EQ(io.at("in.sample").size(2), 5);
        EXPECT_LE(compareOut(comp->run(inputsOfUnet(io), probes), io, name), 1e-4);
    }
}

// ---- precision ----------------------------------------------------------------------------

TEST(Unet, ReducedPrecisionStaysCloseToFp32) {
    const CaseUnet c = loadCaseUnet("golden");
    const NamedTensors in = inputsOfUnet(c.io);
    for (const char* plan : {"unet=fp16", "unet=bf16", "unet=fp16,unet.mid_block=fp32"}) {
        test::ScopedCpuBf16 emulated(CpuBf16::Emulated);
        ProbeContext p = contextFor(plan);
        auto comp = loadThroughFamilyUnet(c, p.policy());
        const double err = compareOut(comp->run(in, p), c.io, plan);
        EXPECT_GT(err, 0.0) << plan;  // the format really ran
        EXPECT_LT(err, std::string(plan).find("bf16") != std::string::npos ? 5e-2 : 1e-2) << plan;
    }
    if (cpuHasBf16Instructions()) {
        test::ScopedCpuBf16 native(CpuBf16::Native);
        ProbeContext p = contextFor("unet=bf16");
        auto comp = loadThroughFamilyUnet(c, p.policy());
        EXPECT_EQ(modelOf(*comp)->named_parameters()["conv_in.weight"].scalar_type(),
                  torch::kBFloat16);
        EXPECT_LT(compareOut(comp->run(in, p), c.io, "unet=bf16 (native)"), 5e-2);
    }
}

// The product's core case: an activation past 65504 in fp16, named inside the UNet.
TEST(Unet, Fp16OverflowIsNamedInsideTheUnet) {
    CaseUnet c = loadCaseUnet("golden");
    // x1e5 keeps the weights finite in fp16 (|w| < 0.23 x 1e5); the feed-forward's output is not.
    const std::string key = "mid_block.attentions.0.transformer_blocks.0.ff.net.2.weight";
    c.weights[key] = c.weights[key] * 1e5;
    const NamedTensors in = inputsOfUnet(c.io);
    const std::string block = "unet.mid_block";
    const std::string transformer = block + ".attentions.0.transformer_blocks.0";
    test::expectFp16OverflowInsideTheBlock(
        {[&](ProbeContext& p) { return loadThroughFamilyUnet(c, p.policy()); }, in, "unet=fp16",
         block, transformer},
        {ProbeLevel::Module, ProbeLevel::Layer, ProbeLevel::Op},
        [&](ProbeLevel level, const FirstNonFinite& first, Component& m16, ProbeContext&) {
            EXPECT_TRUE(torch::isfinite(modelOf(m16)->named_parameters()[key]).all().item<bool>());
            EXPECT_EQ(blockOf(first.at.name), block) << first.at.name;
            EXPECT_EQ(first.at.format, Format::FP16);
            if (level == ProbeLevel::Module) EXPECT_EQ(first.at.name, block);
            if (level == ProbeLevel::Layer) EXPECT_EQ(first.at.name, transformer);
            if (level == ProbeLevel::Op) EXPECT_EQ(first.at.name, transformer + ".ff.net.2");
        });
    // Kept in fp32, the block passes: the plan a user would try next.
    ProbeContext kept = contextFor("unet=fp16,unet.mid_block=fp32", ProbeLevel::Module);
    loadThroughFamilyUnet(c, kept.policy())->run(in, kept);
    EXPECT_FALSE(kept.firstNonFinite().has_value());
}

// upcast_attention (SD 2.x) is what keeps large attention scores finite in fp16.
TEST(Unet, UpcastAttentionKeepsFp16ScoresFinite) {
    CaseUnet c = loadCaseUnet("sd2_tiny");
    // q and k x300: each stays ~1e2-1e3, their products pass 65504 before the softmax.
    for (const char* w : {"to_q", "to_k"}) {
        const std::string key =
            "down_blocks.0.attentions.0.transformer_blocks.0.attn1." + std::string(w) + ".weight";
        c.weights[key] = c.weights[key] * 300;
    }
    const NamedTensors in = inputsOfUnet(c.io);
    const std::string attn = "unet.down_blocks.0.attentions.0.transformer_blocks.0.attn1";
    auto withUpcast = [&](bool upcast) {
        CaseUnet v = c;
        v.config["upcast_attention"] = upcast;
        return v;
    };
    // fp32: how large the scores are.
    ProbeContext p32 = contextFor("", ProbeLevel::Op);
    loadThroughFamilyUnet(withUpcast(false), p32.policy())->run(in, p32);
    double scores = 0;
    for (const auto& r : p32.records())
        if (r.name == attn + ".scores") scores = r.stats.absMax;
    std::printf("  fp32: max |%s.scores| = %.4g\n", attn.c_str(), scores);
    EXPECT_GT(scores, kFp16Max);
    EXPECT_FALSE(p32.firstNonFinite().has_value());

    // fp16 with upcast_attention: q.k and the softmax in float32, the output finite.
    ProbeContext up = contextFor("unet=fp16", ProbeLevel::Op);
    auto out = loadThroughFamilyUnet(withUpcast(true), up.policy())->run(in, up).at("out.sample");
    EXPECT_FALSE(up.firstNonFinite().has_value()) << up.firstNonFinite()->at.name;
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
    int seen = 0;
    for (const auto& r : up.records())
        if (r.name == attn + ".scores") {
            EXPECT_EQ(r.format, Format::FP32);  // computed and kept in float32
            EXPECT_GT(r.stats.absMax, kFp16Max);
            ++seen;
        }
    EXPECT_EQ(seen, 1);

    // fp16 without it: the scores overflow, named at the op.
    ProbeContext plain = contextFor("unet=fp16", ProbeLevel::Op);
    loadThroughFamilyUnet(withUpcast(false), plain.policy())->run(in, plain);
    const auto& first = plain.firstNonFinite();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->at.name, attn + ".scores");
    EXPECT_EQ(first->at.format, Format::FP16);
    EXPECT_GT(first->at.stats.posInf + first->at.stats.negInf, 0);
}

// ---- probes -------------------------------------------------------------------------------

// Scores above kUNetMaxScoreElements are computed in query chunks: the same numbers, and the
// score points recorded once per chunk.
TEST(Unet, ChunkedAttentionMatchesAPlainComputation) {
    torch::manual_seed(4);
    ProbeContext probes = contextFor("", ProbeLevel::Op);
    UNetAttention a(8, 0, 2, 4, false, "attn");
    nn::initialiseForTraining(*a);
    torch::NoGradGuard noGrad;
    const int64_t tokens = 2500;  // 2 x 2 heads x 2500^2 = 2.5e7 scores: 2 chunks
    ASSERT_GT(4 * tokens * tokens, kUNetMaxScoreElements);
    auto x = torch::randn({2, tokens, 8});
    auto y = a->forward(x, torch::Tensor(), probes);  // [2, 2500, 8]
    int scorePoints = 0;
    for (const auto& r : probes.records()) scorePoints += r.name == "attn.scores";
    EXPECT_EQ(scorePoints, 2);
    auto q = a->to_q->forward(x).view({2, tokens, 2, 4}).transpose(1, 2);
    auto k = a->to_k->forward(x).view({2, tokens, 2, 4}).transpose(1, 2);
    auto v = a->to_v->forward(x).view({2, tokens, 2, 4}).transpose(1, 2);
    auto p = torch::softmax(torch::matmul(q, k.transpose(-1, -2)) / 2.0, -1);  // d = 4
    auto o = torch::matmul(p, v).transpose(1, 2).reshape({2, tokens, 8});
    EXPECT_LT(relErr(y, a->to_out0->forward(o)), 1e-5);
}

// ---- errors -------------------------------------------------------------------------------

TEST(Unet, WeightErrorsNameTheKey) {
    const CaseUnet good = loadCaseUnet("sd2_tiny");
    ProbeContext probes = contextFor("");
    auto expectError = [&](const WeightMap& w, const std::string& key) {
        CaseUnet c = good;
        c.weights = w;
        expectThrowNaming<WeightError>([&] { loadThroughFamilyUnet(c, probes.policy()); }, {key});
    };
    auto w = good.weights;
    w.erase("up_blocks.1.attentions.0.transformer_blocks.0.attn2.to_v.weight");
    expectError(w, "up_blocks.1.attentions.0.transformer_blocks.0.attn2.to_v.weight");
    w = good.weights;
    w["down_blocks.0.resnets.0.conv1.weight"] = torch::zeros({8, 8, 1, 1});
    expectError(w, "down_blocks.0.resnets.0.conv1.weight");
    w = good.weights;  // a conv proj_in where the config says linear
    w["down_blocks.0.attentions.0.proj_in.weight"] = torch::zeros({8, 8, 1, 1});
    expectError(w, "down_blocks.0.attentions.0.proj_in.weight");
    w = good.weights;  // SDXL's add_embedding in a model without text_time
    w["add_embedding.linear_1.weight"] = torch::zeros({32, 64});
    expectError(w, "add_embedding.linear_1.weight");
}

// A model without text_time takes no added conditions; the module API checks the same way.
TEST(Unet, AModelWithoutTextTimeTakesNoAddedConditions) {
    ProbeContext probes = contextFor("");
    const CaseUnet sd2 = loadCaseUnet("sd2_tiny");
    auto plain = loadThroughFamilyUnet(sd2, probes.policy());
    NamedTensors extra = inputsOfUnet(sd2.io);
    extra["in.text_embeds"] = torch::zeros({2, 16});
    expectThrowNaming<InputError>([&] { plain->run(extra, probes); }, {"in.text_embeds"});
    UNetInputs u;
    u.sample = torch::zeros({1, 3, 5, 6});
    u.timestep = torch::tensor(10.f);
    u.encoderHiddenStates = torch::zeros({1, 3, 24});
    torch::NoGradGuard noGrad;
    expectThrowNaming<InputError>([&] { modelOf(*plain)->forward(u, probes); },
                                  {"in.sample", "[B, 4, h, w]"});
}

}  // namespace
}  // namespace hs
