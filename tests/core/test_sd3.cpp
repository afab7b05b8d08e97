// diffusers SD3Transformer2DModel (Stable Diffusion 3 / 3.5): golden parity of both goldens
// (SD3: plain blocks; SD3.5: dual attention in block 0 and RMS qk-norm) through the family
// registry, a streamed load, probe names, refused configs and inputs, Stability AI's single-file
// layout, the 2-D sin-cos positional
// table and its crop against diffusers' formula, another configuration (patch 2, three blocks,
// two of them dual) in reduced precision, the unpatchify order, the fp32-residual remedy on the
// residual streams, and an fp16 overflow named inside its block.
#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "golden_helpers.h"
#include "models/opened_component.h"
#include "models/registry.h"
#include "models/sd3/sd3_family.h"
#include "models/sd3/sd3_layers.h"
#include "models/sd3/sd3_transformer.h"
#include "models/single_file.h"
#include "numerics/format.h"
#include "records/format_types.h"
#include "test_util.h"

namespace hs {
namespace {

using test::contextFor;
using test::dataPath;
using test::expectThrowNaming;
using test::keysOf;
using test::readIo;
using test::readJson;
using test::relErr;

// A component folder of the test data with its io file.
struct CaseSD3 {
    nlohmann::json config;
    WeightMap weights;
    NamedTensors io;
};

CaseSD3 openSD3(const std::string& label) {
    OpenedComponent opened = openFolderComponent(dataPath("golden/" + label));
    EXPECT_EQ(opened.className, "SD3Transformer2DModel");
    return {opened.source.config, opened.source.weights,
            readIo("golden/" + label + "_io.safetensors")};
}

NamedTensors inputsSD3(const NamedTensors& io) {
    NamedTensors in;
    for (const auto& kv : io)
        if (kv.first.rfind("in.", 0) == 0) in.emplace(kv);
    return in;
}

std::shared_ptr<const Family> sd3Family() {
    return FamilyRegistry::global().require("SD3Transformer2DModel", "test");
}

std::shared_ptr<Component> loadSD3(const CaseSD3& c, ProbeContext& probes,
                                   LoadMode mode = LoadMode::Full) {
    return loadComponent(*sd3Family(), {"test", c.config, c.weights}, probes.policy(),
                         "transformer", mode);
}

// ---- golden parity, streaming, probe points ----------------------------------------------------

TEST(SD3TransformerFamily, IsRegisteredAsTheDenoiser) {
    auto f = sd3Family();
    EXPECT_EQ(f->role, Role::Denoiser);
    EXPECT_EQ(f->defaultComponent, "transformer");
    EXPECT_EQ(f->blockStems, (std::vector<std::string>{"transformer_blocks."}));
    for (const char* key : {"in.hidden_states", "in.encoder_hidden_states", "in.pooled_projections",
                            "in.timestep", "out.sample"})
        EXPECT_NE(f->io.find(key), std::string::npos) << key;
}

// Both goldens through the registered family's run() at every probe level (probes change
// nothing); the module's parameters and buffers are the checkpoint's keys, no more, no fewer.
TEST(SD3Transformer, GoldenParity) {
    for (const char* label : {"sd3", "sd35"}) {
        const CaseSD3 c = openSD3(label);
        const NamedTensors in = inputsSD3(c.io);
        const auto& ref = c.io.at("out.sample");
        for (ProbeLevel level : {ProbeLevel::Off, ProbeLevel::Layer, ProbeLevel::Op}) {
            ProbeContext probes = contextFor("", level);
            auto m = loadSD3(c, probes);
            EXPECT_EQ(keysOf(stateOf(m->module())), keysOf(c.weights)) << label;
            const NamedTensors out = m->run(in, probes);
            ASSERT_EQ(out.size(), 1u);
            const auto& got = out.at("out.sample");
            ASSERT_EQ(got.sizes(), ref.sizes()) << label;
            EXPECT_EQ(got.scalar_type(), torch::kFloat);
            const double err = relErr(got, ref);
            std::printf("  %-4s out.sample (probes %-6s) rel err %.3e (max |ref| %.3f)\n", label,
                        probeLevelName(level).c_str(), err, ref.abs().max().item<double>());
            EXPECT_LE(err, 1e-4) << label;
        }
    }
}

// Blocks converted one at a time, as for a model larger than memory: bit for bit the whole load.
TEST(SD3Transformer, StreamedEqualsTheWholeLoad) {
    for (const char* label : {"sd3", "sd35"}) {
        const CaseSD3 c = openSD3(label);
        const NamedTensors in = inputsSD3(c.io);
        for (const std::string plan : {"", "transformer=fp16"}) {
            SCOPED_TRACE(std::string(label) + " plan '" + plan + "'");
            ProbeContext pf = contextFor(plan, ProbeLevel::Layer);
            ProbeContext ps = contextFor(plan, ProbeLevel::Layer);
            auto whole = loadSD3(c, pf);
            auto streamed = loadSD3(c, ps, LoadMode::Streamed);
            ASSERT_EQ(streamed->loadMode(), LoadMode::Streamed);
            const auto& stream = *streamed->streamedBlocks()->weightStream();
            EXPECT_EQ(stream.blocks().size(), 2u);
            EXPECT_TRUE(torch::equal(whole->run(in, pf).at("out.sample"),
                                     streamed->run(in, ps).at("out.sample")));
            EXPECT_EQ(size_t(stream.materialisations()), stream.blocks().size());
            EXPECT_EQ(stream.materialisedBlocks(), 0u);
        }
    }
}

// SD3.5's golden: block 0 has the dual attention and a text output, block 1 (the last) has
// neither.
TEST(SD3Transformer, ProbeNamesAndGranularity) {
    const CaseSD3 c = openSD3("sd35");
    const NamedTensors in = inputsSD3(c.io);
    ProbeContext probes = contextFor("", ProbeLevel::Op);
    auto m = loadSD3(c, probes);
    m->run(in, probes);
    std::map<std::string, ProbeLevel> got;
    for (const auto& r : probes.records()) {
        got.emplace(r.name, r.granularity);
        EXPECT_EQ(r.name.rfind("transformer.", 0), 0u) << r.name;
    }
    ASSERT_FALSE(probes.records().empty());
    EXPECT_EQ(probes.records().front().name, "transformer.pos_embed.proj");
    EXPECT_EQ(probes.records().back().name, "transformer.proj_out");
    const std::string b0 = "transformer.transformer_blocks.0";
    const std::string b1 = "transformer.transformer_blocks.1";
    const std::map<std::string, ProbeLevel> expected{
        {b0, ProbeLevel::Module},
        {b0 + ".context", ProbeLevel::Module},
        {b1, ProbeLevel::Module},
        {"transformer.proj_out", ProbeLevel::Module},
        {"transformer.pos_embed", ProbeLevel::Layer},
        {"transformer.time_text_embed", ProbeLevel::Layer},
        {"transformer.context_embedder", ProbeLevel::Layer},
        {"transformer.norm_out", ProbeLevel::Layer},
        {b0 + ".norm1", ProbeLevel::Layer},
        {b0 + ".norm1_context", ProbeLevel::Layer},
        {b0 + ".attn", ProbeLevel::Layer},
        {b0 + ".attn.to_add_out", ProbeLevel::Layer},
        {b0 + ".attn2", ProbeLevel::Layer},
        {b0 + ".ff", ProbeLevel::Layer},
        {b0 + ".ff_context", ProbeLevel::Layer},
        {b1 + ".norm1_context", ProbeLevel::Layer},
        {b1 + ".attn", ProbeLevel::Layer},
        {"transformer.pos_embed.proj", ProbeLevel::Op},
        {"transformer.time_text_embed.time_proj", ProbeLevel::Op},
        {"transformer.time_text_embed.timestep_embedder.act", ProbeLevel::Op},
        {"transformer.time_text_embed.text_embedder.act_1", ProbeLevel::Op},
        {b0 + ".norm1.modulated2", ProbeLevel::Op},
        {b0 + ".attn.to_q", ProbeLevel::Op},
        {b0 + ".attn.norm_q", ProbeLevel::Op},
        {b0 + ".attn.norm_added_k", ProbeLevel::Op},
        {b0 + ".attn.add_v_proj", ProbeLevel::Op},
        {b0 + ".attn.sdpa", ProbeLevel::Op},
        {b0 + ".attn2.norm_k", ProbeLevel::Op},
        {b0 + ".attn2.sdpa", ProbeLevel::Op},
        {b0 + ".attn_residual", ProbeLevel::Op},
        {b0 + ".attn2_residual", ProbeLevel::Op},
        {b0 + ".context_attn_residual", ProbeLevel::Op},
        {b0 + ".ff.net.0", ProbeLevel::Op},
        {b0 + ".norm2.modulated", ProbeLevel::Op},
        {b1 + ".norm1_context.linear", ProbeLevel::Op},
        {b1 + ".attn.add_q_proj", ProbeLevel::Op}};
    for (const auto& kv : expected) {
        ASSERT_TRUE(got.count(kv.first)) << "no probe point " << kv.first;
        EXPECT_EQ(got.at(kv.first), kv.second) << kv.first;
    }
    for (const std::string& n :
         {b1 + ".context", b1 + ".attn.to_add_out", b1 + ".attn2", b1 + ".ff_context",
          b1 + ".norm1.modulated2", b1 + ".context_attn_residual"})
        EXPECT_FALSE(got.count(n)) << n;
    // SD3 (no qk-norm): no norm_q point.
    const CaseSD3 c3 = openSD3("sd3");
    ProbeContext p3 = contextFor("", ProbeLevel::Op);
    loadSD3(c3, p3)->run(inputsSD3(c3.io), p3);
    std::set<std::string> names3;
    for (const auto& r : p3.records()) names3.insert(r.name);
    EXPECT_TRUE(names3.count(b0 + ".attn"));
    EXPECT_FALSE(names3.count(b0 + ".attn.norm_q"));
    EXPECT_FALSE(names3.count(b0 + ".attn2"));

    // Layer level records exactly the Module and Layer points, once each, all finite:
    // pos_embed, time_text_embed, context_embedder, norm_out, proj_out; block 0: itself,
    // .context, norm1, norm1_context, attn, attn.to_add_out, attn2, ff, ff_context; block 1:
    // itself, norm1, norm1_context, attn, ff.
    ProbeContext layer = contextFor("", ProbeLevel::Layer);
    m->run(in, layer);
    std::set<std::string> seen;
    for (const auto& r : layer.records()) {
        EXPECT_LE(int(r.granularity), int(ProbeLevel::Layer)) << r.name;
        EXPECT_TRUE(seen.insert(r.name).second) << "recorded twice: " << r.name;
        EXPECT_TRUE(r.stats.allFinite()) << r.name;
    }
    EXPECT_EQ(seen.size(), 5u + 9u + 5u);
}

// ---- configs -------------------------------------------------------------------------------

TEST(SD3TransformerConfig, RefusesWhatItCannotRunByName) {
    const nlohmann::json base = readJson(dataPath("golden/sd35/config.json"));
    EXPECT_NO_THROW(SD3Config::fromJson(base));
    const std::vector<std::pair<std::string, nlohmann::json>> edits{
        {"qk_norm", "layer_norm2"},
        {"qk_norm", "layer_norm"},  // diffusers has it; no SD3 model uses it
        {"qk_norm", 1},
        {"dual_attention_layers", {0, 2}},  // num_layers is 2
        {"dual_attention_layers", {-1}},
        {"dual_attention_layers", 0},
        {"num_attention_heads", 0},
        {"num_attention_heads", "4"},
        {"attention_head_dim", 0},
        {"attention_head_dim", 7},  // 4 x 7 = 28: no 2-D sin-cos table
        {"caption_projection_dim", 48},
        {"pos_embed_max_size", nullptr},
        {"pos_embed_max_size", 100000},
        {"num_layers", 0},
        {"num_layers", 100000},
        {"patch_size", 0},
        {"sample_size", 0},
        {"in_channels", -4},
        {"out_channels", 0},
        {"joint_attention_dim", 0},
        {"pooled_projection_dim", 1.5}};
    for (const auto& [key, value] : edits) {
        nlohmann::json j = base;
        j[key] = value;
        SCOPED_TRACE(j.dump());
        expectThrowNaming<ConfigError>([&] { SD3Config::fromJson(j); }, {key});
    }
}

// ---- another configuration: patch 2, three blocks, dual attention in two ---------------------

// Shares nothing with the goldens: patch 2, 16 channels in and out, 2 heads of 12, three blocks
// with dual attention in blocks 0 and 1, RMS qk-norm, a 8 x 8 positional table.
nlohmann::json otherConfigSD3() {
    return {{"_class_name", "SD3Transformer2DModel"},
            {"sample_size", 8},
            {"patch_size", 2},
            {"in_channels", 16},
            {"out_channels", 16},
            {"num_layers", 3},
            {"attention_head_dim", 12},
            {"num_attention_heads", 2},
            {"joint_attention_dim", 20},
            {"caption_projection_dim", 24},
            {"pooled_projection_dim", 18},
            {"pos_embed_max_size", 8},
            {"dual_attention_layers", {0, 1}},
            {"qk_norm", "rms_norm"}};
}

// Seeded random weights in checkpoint layout: default linears, norms around 1, small biases, and
// the positional table diffusers stores.
WeightMap randomWeightsSD3(const nlohmann::json& config, uint64_t seed = 5) {
    torch::manual_seed(seed);
    const SD3Config c = SD3Config::fromJson(config);
    SD3Transformer m(c);
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
    w["pos_embed.pos_embed"] =
        sd3SincosPosEmbed(c.innerDim(), c.posEmbedMaxSize, c.baseSize()).unsqueeze(0);
    return w;
}

// A batch of 2 with 12 x 10 latents (6 x 5 patches of the 8 x 8 table), 5 text tokens, two
// timesteps.
NamedTensors otherInputsSD3() {
    torch::manual_seed(9);
    return {{"in.hidden_states", torch::randn({2, 16, 12, 10})},
            {"in.encoder_hidden_states", torch::randn({2, 5, 20})},
            {"in.pooled_projections", torch::randn({2, 18})},
            {"in.timestep", torch::tensor({800.f, 350.f})},
            {"out.sample", torch::zeros({1})}};  // not an input: ignored
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

TEST(SD3Transformer, OtherConfigurationRunsWithItsShapesAndInReducedPrecision) {
    const auto config = otherConfigSD3();
    const auto weights = randomWeightsSD3(config);
    EXPECT_TRUE(weights.count("transformer_blocks.1.attn2.norm_q.weight"));
    EXPECT_FALSE(weights.count("transformer_blocks.2.attn2.to_q.weight"));
    EXPECT_FALSE(weights.count("transformer_blocks.2.attn.to_add_out.weight"));
    EXPECT_FALSE(weights.count("transformer_blocks.2.ff_context.net.2.weight"));
    EXPECT_EQ(weights.at("transformer_blocks.0.norm1.linear.weight").sizes(),
              (std::vector<int64_t>{9 * 24, 24}));
    EXPECT_EQ(weights.at("transformer_blocks.2.norm1.linear.weight").sizes(),
              (std::vector<int64_t>{6 * 24, 24}));
    EXPECT_EQ(weights.at("transformer_blocks.2.norm1_context.linear.weight").sizes(),
              (std::vector<int64_t>{2 * 24, 24}));
    EXPECT_EQ(weights.at("pos_embed.proj.weight").sizes(), (std::vector<int64_t>{24, 16, 2, 2}));
    EXPECT_EQ(weights.at("proj_out.weight").sizes(), (std::vector<int64_t>{4 * 16, 24}));

    const NamedTensors in = otherInputsSD3();
    auto family = sd3Family();
    const ComponentSource source{"other", config, weights};
    ProbeContext p32 = contextFor("");
    auto m32 = loadComponent(*family, source, p32.policy(), "transformer");
    auto o32 = m32->run(in, p32).at("out.sample");
    ASSERT_EQ(o32.sizes(), (std::vector<int64_t>{2, 16, 12, 10}));
    EXPECT_TRUE(torch::isfinite(o32).all().item<bool>());
    // The two batch entries differ in timestep and inputs, so their outputs must differ too.
    EXPECT_GT((o32[0] - o32[1]).abs().max().item<double>(), 1e-3);
    // A batch entry alone gives the same as within the batch; a [1] timestep is broadcast.
    NamedTensors one{
        {"in.hidden_states", in.at("in.hidden_states").narrow(0, 1, 1)},
        {"in.encoder_hidden_states", in.at("in.encoder_hidden_states").narrow(0, 1, 1)},
        {"in.pooled_projections", in.at("in.pooled_projections").narrow(0, 1, 1)},
        {"in.timestep", torch::tensor(350.f)}};
    EXPECT_LT(relErr(m32->run(one, p32).at("out.sample")[0], o32[1]), 1e-5);
    // predict() is run() for a strategy.
    auto* sd3 = dynamic_cast<SD3TransformerComponent*>(m32.get());
    ASSERT_NE(sd3, nullptr);
    EXPECT_TRUE(
        torch::equal(sd3->predict(in.at("in.hidden_states"), in.at("in.encoder_hidden_states"),
                                  in.at("in.pooled_projections"), in.at("in.timestep"), p32),
                     o32));
    EXPECT_EQ(sd3->config().numLayers, 3);

    for (CpuBf16 mode : test::bf16ModesHere()) {
        test::ScopedCpuBf16 scoped(mode);
        for (auto [plan, tol] :
             {std::pair<const char*, double>{"transformer=bf16", 5e-2},
              {"transformer=fp16", 1e-2},
              {"transformer=bf16,transformer.transformer_blocks.1=fp32", 5e-2}}) {
            ProbeContext p = contextFor(plan);
            auto m = loadComponent(*family, source, p.policy(), "transformer");
            auto o = m->run(in, p).at("out.sample");
            EXPECT_EQ(o.scalar_type(), torch::kFloat);
            const double err = relErr(o, o32);
            std::printf("  bf16 %-8s %-56s vs fp32: rel err %.3e\n", cpuBf16Name(mode).c_str(),
                        plan, err);
            EXPECT_LT(err, tol) << plan;
            EXPECT_GT(err, 0.0) << plan;  // the reduced format really ran
        }
    }
}

// proj_out's feature f of patch (i, j) is (dy * p + dx) * C + c for pixel (p i + dy, p j + dx)
// of channel c (diffusers' reshape to [B, h, w, p, p, C] and einsum "nhwpqc->nchpwq"): with
// proj_out's weight zero the output is its bias laid out so.
TEST(SD3Transformer, UnpatchifyFollowsDiffusersLayout) {
    const auto config = otherConfigSD3();
    auto weights = randomWeightsSD3(config);
    weights["proj_out.weight"] = torch::zeros_like(weights.at("proj_out.weight"));
    weights["proj_out.bias"] = torch::arange(64, torch::kFloat32);
    ProbeContext probes = contextFor("");
    auto m =
        loadComponent(*sd3Family(), {"other", config, weights}, probes.policy(), "transformer");
    auto out = m->run(otherInputsSD3(), probes).at("out.sample");  // [2, 16, 12, 10]
    const int64_t p = 2, C = 16;
    for (int64_t c : {0, 5, 15})
        for (int64_t y : {0, 1, 6, 11})
            for (int64_t x : {0, 3, 8, 9})
                EXPECT_EQ(out[1][c][y][x].item<float>(), float(((y % p) * p + x % p) * C + c))
                    << c << " " << y << " " << x;
}

// ---- the positional table ------------------------------------------------------------------

// diffusers get_2d_sincos_pos_embed(dim, n, base_size) written out: position i along an axis is
// i / (n / base_size); channels [0, dim/2) embed the column, [dim/2, dim) the row, each half
// [sin(pos w_k) | cos(pos w_k)] with w_k = 1 / 10000^(k / (dim / 4)).
double sincosReferenceSD3(int64_t dim, int64_t n, int64_t base, int64_t row, int64_t col,
                          int64_t ch) {
    const int64_t half = dim / 2, quarter = dim / 4;
    const double pos = double(ch < half ? col : row) / (double(n) / double(base));
    const int64_t k = ch % half;
    const double w = 1.0 / std::pow(10000.0, double(k % quarter) / double(quarter));
    return k < quarter ? std::sin(pos * w) : std::cos(pos * w);
}

TEST(SD3TransformerPosEmbed, TableAndCropFollowDiffusersFormula) {
    // An 8-wide table over a 4 x 4 grid with base_size 2: positions 0, 0.5, 1, 1.5.
    const auto table = sd3SincosPosEmbed(8, 4, 2);
    ASSERT_EQ(table.sizes(), (std::vector<int64_t>{16, 8}));
    EXPECT_EQ(table.scalar_type(), torch::kFloat);
    // Row 1, column 3: the column at 1.5, the row at 0.5; w = 1, 0.01.
    const std::vector<double> token13{std::sin(1.5),   std::sin(0.015), std::cos(1.5),
                                      std::cos(0.015), std::sin(0.5),   std::sin(0.005),
                                      std::cos(0.5),   std::cos(0.005)};
    for (int64_t ch = 0; ch < 8; ++ch)
        EXPECT_NEAR(table[1 * 4 + 3][ch].item<double>(), token13[size_t(ch)], 1e-7) << ch;
    EXPECT_NEAR(table[1 * 4 + 3][0].item<double>(), 0.9974949866, 1e-7);
    EXPECT_NEAR(table[1 * 4 + 3][6].item<double>(), 0.8775825619, 1e-7);
    for (int64_t r = 0; r < 4; ++r)
        for (int64_t c = 0; c < 4; ++c)
            for (int64_t ch = 0; ch < 8; ++ch)
                ASSERT_NEAR(table[r * 4 + c][ch].item<double>(),
                            sincosReferenceSD3(8, 4, 2, r, c, ch), 1e-7)
                    << r << " " << c << " " << ch;

    // cropped_pos_embed(2, 3) of the 4 x 4 table: top (4 - 2) // 2 = 1, left (4 - 3) // 2 = 0.
    const auto crop = sd3CropPosEmbed(table.unsqueeze(0), 4, 2, 3);
    ASSERT_EQ(crop.sizes(), (std::vector<int64_t>{1, 6, 8}));
    for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 3; ++c)
            for (int64_t ch = 0; ch < 8; ++ch)
                ASSERT_NEAR(crop[0][r * 3 + c][ch].item<double>(),
                            sincosReferenceSD3(8, 4, 2, r + 1, c, ch), 1e-7);
    // 5 x 5 table, 1 x 4 crop: top 2, left 0 (floor of (5 - 4) / 2).
    const auto t5 = sd3SincosPosEmbed(8, 5, 5);
    const auto c14 = sd3CropPosEmbed(t5.unsqueeze(0), 5, 1, 4);
    EXPECT_TRUE(torch::equal(c14[0], t5.narrow(0, 2 * 5, 4)));
    EXPECT_ANY_THROW(sd3CropPosEmbed(t5.unsqueeze(0), 5, 6, 1));
}

// The goldens store the table diffusers computed at construction: the same formula.
TEST(SD3TransformerPosEmbed, GoldenTableIsTheFormula) {
    const CaseSD3 g = openSD3("sd3");
    const auto& stored = g.weights.at("pos_embed.pos_embed");
    ASSERT_EQ(stored.sizes(), (std::vector<int64_t>{1, 96 * 96, 32}));
    const auto ours = sd3SincosPosEmbed(32, 96, 32).unsqueeze(0);  // base_size 32 // 1
    const double err = (ours - stored).abs().max().item<double>();
    std::printf("  max |formula - stored table| = %.3e\n", err);
    EXPECT_LT(err, 1e-6);
}

// ---- errors --------------------------------------------------------------------------------

TEST(SD3Transformer, InputErrorsNameTheKeyAndShape) {
    const CaseSD3 g = openSD3("sd3");
    ProbeContext probes = contextFor("");
    auto m = loadComponent(*sd3Family(), {"golden/sd3", g.config, g.weights}, probes.policy(),
                           "transformer");
    auto expectError = [&](const NamedTensors& in, const std::vector<std::string>& needles) {
        expectThrowNaming<InputError>([&] { m->run(in, probes); }, needles);
    };
    const NamedTensors io = inputsSD3(g.io);
    auto in = io;
    in["in.hidden_states"] = torch::zeros({1, 16, 16, 16});
    expectError(in, {"in.hidden_states", "[B, 4, H, W]"});
    in["in.hidden_states"] = torch::zeros({1, 4, 97, 16});  // more than 96 patches
    expectError(in, {"in.hidden_states", "96"});
    in["in.hidden_states"] = torch::zeros({1, 4, 16});
    expectError(in, {"in.hidden_states"});
    in = io;
    in["in.encoder_hidden_states"] = torch::zeros({1, 12, 16});
    expectError(in, {"in.encoder_hidden_states", "[1, L_txt, 32]"});
    in = io;
    in["in.pooled_projections"] = torch::zeros({2, 64});
    expectError(in, {"in.pooled_projections", "[1, 64]"});
    in = io;
    in["in.timestep"] = torch::zeros({3});
    expectError(in, {"in.timestep", "[1]"});
    in.erase("in.timestep");
    expectError(in, {"in.timestep"});
    in = io;
    in["in.guidance"] = torch::zeros({1});
    expectError(in, {"in.guidance"});
    // Patch 2: odd sides are refused by name.
    const auto config = otherConfigSD3();
    auto other = loadComponent(*sd3Family(), {"other", config, randomWeightsSD3(config)},
                               probes.policy(), "transformer");
    auto* sd3 = dynamic_cast<SD3TransformerComponent*>(other.get());
    ASSERT_NE(sd3, nullptr);
    expectThrowNaming<InputError>(
        [&] {
            sd3->predict(torch::zeros({1, 16, 11, 10}), torch::zeros({1, 5, 20}),
                         torch::zeros({1, 18}), torch::tensor({500.f}), probes);
        },
        {"in.hidden_states", "multiples of 2"});
}

TEST(SD3Transformer, LoadErrorsNameTheKey) {
    const CaseSD3 g = openSD3("sd35");
    ProbeContext probes = contextFor("");
    auto expectError = [&](const WeightMap& w, const std::string& key) {
        expectThrowNaming<WeightError>([&] { loadSD3Transformer(g.config, w, probes.policy()); },
                                       {key});
    };
    auto w = g.weights;
    w.erase("transformer_blocks.0.attn2.norm_q.weight");
    expectError(w, "transformer_blocks.0.attn2.norm_q.weight");
    w = g.weights;
    w.erase("pos_embed.pos_embed");
    expectError(w, "pos_embed.pos_embed");
    w = g.weights;
    w["transformer_blocks.1.attn.to_add_out.weight"] = torch::zeros({32, 32});  // last block
    expectError(w, "transformer_blocks.1.attn.to_add_out.weight");
    w = g.weights;
    w["transformer_blocks.1.norm1_context.linear.weight"] = torch::zeros({192, 32});
    expectError(w, "transformer_blocks.1.norm1_context.linear.weight");
    // SD3's weights under SD3.5's config: block 0's norm1 has 6 chunks, not SD35AdaLayerNormZeroX's
    // 9.
    expectError(openSD3("sd3").weights, "transformer_blocks.0.norm1.linear.weight");
}

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

// ---- reduced precision on the residual streams ---------------------------------------------

// True when v (a float's value) has no exact fp16 form.
bool notFp16SD3(double v) {
    if (!std::isfinite(v)) return false;
    return double(float(c10::Half(float(v)))) != v;
}

// `transformer=fp16,transformer=fp32-residual`: exactly the points marked kResidualStream (the
// blocks' outputs and their residual sums, attn2's included) hold fp32, the rest is stored as in
// the plain fp16 plan.
TEST(SD3Transformer, Fp32ResidualKeepsExactlyTheStreamPointsInFp32) {
    const CaseSD3 g = openSD3("sd35");
    const NamedTensors in = inputsSD3(g.io);
    auto run = [&](const std::string& plan) {
        ProbeContext probes = contextFor(plan, ProbeLevel::Op);
        auto m = loadComponent(*sd3Family(), {"golden/sd35", g.config, g.weights}, probes.policy(),
                               "transformer");
        m->run(in, probes);
        return probes.takeRecords();
    };
    const auto plain = run("transformer=fp16");
    const auto kept = run("transformer=fp16,transformer=fp32-residual");
    ASSERT_EQ(plain.size(), kept.size());
    const std::regex streams(
        R"(transformer\.transformer_blocks\.\d+)"
        R"((\.context|\.attn_residual|\.attn2_residual|\.context_attn_residual)?)");
    int streamPoints = 0, inexact = 0, fp16Points = 0;
    std::set<std::string> names;
    for (size_t i = 0; i < kept.size(); ++i) {
        const ProbeRecord& a = plain[i];
        const ProbeRecord& b = kept[i];
        ASSERT_EQ(a.name, b.name) << "record " << i;
        if (std::regex_match(b.name, streams)) {
            ++streamPoints;
            names.insert(b.name);
            EXPECT_EQ(formatName(a.format), "fp16") << a.name;
            EXPECT_FALSE(notFp16SD3(a.stats.min) || notFp16SD3(a.stats.max)) << a.name;
            EXPECT_EQ(formatName(b.format), "fp32") << b.name;
            if (notFp16SD3(b.stats.min) || notFp16SD3(b.stats.max)) ++inexact;
        } else {
            EXPECT_EQ(formatName(b.format), formatName(a.format)) << b.name;
            if (b.format == Format::FP16) ++fp16Points;
        }
    }
    std::printf("  %zu points: %d on the stream (%zu names), %d with values fp16 cannot hold\n",
                kept.size(), streamPoints, names.size(), inexact);
    // Block 0: attn_residual, attn2_residual, itself, context_attn_residual, .context; block 1:
    // attn_residual, itself.
    EXPECT_EQ(names.size(), 7u);
    EXPECT_GT(inexact, 0);
    EXPECT_GT(fp16Points, streamPoints / 2);
}

// The product's core case: a block's feed-forward output passes 65504 in fp16 (diffusers does
// not clip SD3's streams, so the Inf reaches the stream and the output).
TEST(SD3Transformer, Fp16OverflowIsNamedInsideTheBlock) {
    const auto config = otherConfigSD3();
    auto weights = randomWeightsSD3(config);
    // x3e5 keeps every weight finite in fp16 (|w| <= 3e5 / sqrt(96) = 3.1e4 < 65504): what
    // overflows is the activations, as in the real failure.
    weights["transformer_blocks.1.ff.net.2.weight"] *= 3e5;
    const NamedTensors in = otherInputsSD3();
    const std::string block = "transformer.transformer_blocks.1";

    ProbeContext p32 = contextFor("", ProbeLevel::Layer);
    auto m32 = loadComponent(*sd3Family(), {"other", config, weights}, p32.policy(), "transformer");
    EXPECT_TRUE(torch::isfinite(m32->run(in, p32).at("out.sample")).all().item<bool>());
    EXPECT_FALSE(p32.firstNonFinite().has_value());
    double ffMax = 0;
    for (const auto& r : p32.records())
        if (r.name == block + ".ff") ffMax = r.stats.absMax;
    std::printf("  fp32: max |%s.ff| = %.4g\n", block.c_str(), ffMax);
    EXPECT_GT(ffMax, kFp16Max);

    for (ProbeLevel level : {ProbeLevel::Op, ProbeLevel::Layer, ProbeLevel::Module}) {
        ProbeContext p16 = contextFor("transformer=fp16", level);
        auto m16 =
            loadComponent(*sd3Family(), {"other", config, weights}, p16.policy(), "transformer");
        EXPECT_TRUE(torch::isfinite(
                        m16->module().named_parameters()["transformer_blocks.1.ff.net.2.weight"])
                        .all()
                        .item<bool>());
        m16->run(in, p16);
        const auto& first = p16.firstNonFinite();
        ASSERT_TRUE(first.has_value()) << probeLevelName(level);
        std::printf("  fp16, probes %-6s: first non-finite at %s\n", probeLevelName(level).c_str(),
                    first->at.name.c_str());
        EXPECT_TRUE(first->at.name == block || first->at.name.rfind(block + ".", 0) == 0)
            << first->at.name;
        EXPECT_EQ(first->at.name, level == ProbeLevel::Module ? block : block + ".ff");
        EXPECT_FALSE(torch::isfinite(m16->run(in, p16).at("out.sample")).all().item<bool>());
    }
}

// ---- Stability AI's single-file layout ------------------------------------------------------

// diffusers' (scale, shift) halves back to the original (shift, scale).
torch::Tensor shiftScaleSD3(const torch::Tensor& t) {
    auto h = t.chunk(2, 0);
    return torch::cat({h[1], h[0]}, 0);
}

// A diffusers SD3Transformer2DModel state dict written in the layout of Stability's
// sd3_medium.safetensors / sd3.5_*.safetensors (the inverse of diffusers'
// convert_sd3_transformer_checkpoint_to_diffusers), under `prefix`. Every key is used once.
WeightMap toStabilityLayoutSD3(const WeightMap& w, int numLayers, const std::string& prefix) {
    WeightMap o;
    std::set<std::string> used;
    auto get = [&](const std::string& key) {
        EXPECT_TRUE(w.count(key)) << key;
        used.insert(key);
        return w.at(key);
    };
    auto pair = [&](const std::string& to, const std::string& from) {
        for (const char* p : {".weight", ".bias"}) o[prefix + to + p] = get(from + p);
    };
    o[prefix + "pos_embed"] = get("pos_embed.pos_embed");
    pair("x_embedder.proj", "pos_embed.proj");
    pair("t_embedder.mlp.0", "time_text_embed.timestep_embedder.linear_1");
    pair("t_embedder.mlp.2", "time_text_embed.timestep_embedder.linear_2");
    pair("y_embedder.mlp.0", "time_text_embed.text_embedder.linear_1");
    pair("y_embedder.mlp.2", "time_text_embed.text_embedder.linear_2");
    pair("context_embedder", "context_embedder");
    for (int i = 0; i < numLayers; ++i) {
        const std::string b = "joint_blocks." + std::to_string(i) + ".";
        const std::string d = "transformer_blocks." + std::to_string(i) + ".";
        const bool last = i == numLayers - 1;
        auto qkv = [&](const std::string& to, const std::string& a, const char* q, const char* k,
                       const char* v) {
            for (const char* p : {".weight", ".bias"})
                o[prefix + to + ".qkv" + p] =
                    torch::cat({get(d + a + q + p), get(d + a + k + p), get(d + a + v + p)}, 0);
        };
        auto norms = [&](const std::string& to, const std::string& q, const std::string& k) {
            if (!w.count(d + q + ".weight")) return;
            o[prefix + to + ".ln_q.weight"] = get(d + q + ".weight");
            o[prefix + to + ".ln_k.weight"] = get(d + k + ".weight");
        };
        qkv(b + "x_block.attn", "attn.", "to_q", "to_k", "to_v");
        norms(b + "x_block.attn", "attn.norm_q", "attn.norm_k");
        pair(b + "x_block.attn.proj", d + "attn.to_out.0");
        if (w.count(d + "attn2.to_q.weight")) {
            qkv(b + "x_block.attn2", "attn2.", "to_q", "to_k", "to_v");
            norms(b + "x_block.attn2", "attn2.norm_q", "attn2.norm_k");
            pair(b + "x_block.attn2.proj", d + "attn2.to_out.0");
        }
        pair(b + "x_block.adaLN_modulation.1", d + "norm1.linear");
        pair(b + "x_block.mlp.fc1", d + "ff.net.0.proj");
        pair(b + "x_block.mlp.fc2", d + "ff.net.2");
        qkv(b + "context_block.attn", "attn.", "add_q_proj", "add_k_proj", "add_v_proj");
        norms(b + "context_block.attn", "attn.norm_added_q", "attn.norm_added_k");
        if (last) {
            for (const char* p : {".weight", ".bias"})
                o[prefix + b + "context_block.adaLN_modulation.1" + p] =
                    shiftScaleSD3(get(d + "norm1_context.linear" + p));
            continue;
        }
        pair(b + "context_block.attn.proj", d + "attn.to_add_out");
        pair(b + "context_block.adaLN_modulation.1", d + "norm1_context.linear");
        pair(b + "context_block.mlp.fc1", d + "ff_context.net.0.proj");
        pair(b + "context_block.mlp.fc2", d + "ff_context.net.2");
    }
    pair("final_layer.linear", "proj_out");
    for (const char* p : {".weight", ".bias"})
        o[prefix + "final_layer.adaLN_modulation.1" + p] =
            shiftScaleSD3(get("norm_out.linear" + std::string(p)));
    EXPECT_EQ(used.size(), w.size()) << "keys left out of the original layout";
    return o;
}

TEST(SD3TransformerSingleFile, StabilityLayoutReproducesTheGolden) {
    const CaseSD3 g = openSD3("sd35");
    const SD3Config golden = SD3Config::fromJson(g.config);
    for (const std::string prefix : {"model.diffusion_model.", ""}) {
        SCOPED_TRACE("prefix '" + prefix + "'");
        const WeightMap file = toStabilityLayoutSD3(g.weights, 2, prefix);
        const auto names = detectSingleFile(file);
        ASSERT_EQ(names.size(), 1u);
        EXPECT_EQ(names[0].rfind("SD3 MMDiT (", 0), 0u) << names[0];
        const SingleFileContents f = convertSingleFile(file, "sd35.safetensors");
        ASSERT_EQ(f.components.size(), 1u);
        EXPECT_TRUE(f.notConverted.empty());
        EXPECT_TRUE(f.ignored.empty());
        const ConvertedComponent& c = f.components[0];
        EXPECT_EQ(c.slot, "transformer");
        EXPECT_EQ(c.className, "SD3Transformer2DModel");
        std::printf("  %s\n", c.description.c_str());
        const SD3Config inferred = SD3Config::fromJson(c.config);
        EXPECT_EQ(inferred.patchSize, golden.patchSize);
        EXPECT_EQ(inferred.inChannels, golden.inChannels);
        EXPECT_EQ(inferred.outChannels, golden.outChannels);
        EXPECT_EQ(inferred.numLayers, golden.numLayers);
        EXPECT_EQ(inferred.attentionHeadDim, golden.attentionHeadDim);
        EXPECT_EQ(inferred.numAttentionHeads, golden.numAttentionHeads);
        EXPECT_EQ(inferred.jointAttentionDim, golden.jointAttentionDim);
        EXPECT_EQ(inferred.captionProjectionDim, golden.captionProjectionDim);
        EXPECT_EQ(inferred.pooledProjectionDim, golden.pooledProjectionDim);
        EXPECT_EQ(inferred.posEmbedMaxSize, golden.posEmbedMaxSize);
        EXPECT_EQ(inferred.dualAttentionLayers, golden.dualAttentionLayers);
        EXPECT_EQ(inferred.qkRmsNorm, golden.qkRmsNorm);
        ASSERT_EQ(keysOf(c.weights), keysOf(g.weights));
        for (const auto& kv : g.weights)
            EXPECT_TRUE(torch::equal(c.weights.at(kv.first), kv.second)) << kv.first;

        ProbeContext probes = contextFor("", ProbeLevel::Layer);
        auto m = loadComponent(*sd3Family(), sourceOf(c, "sd35.safetensors"), probes.policy(),
                               "transformer");
        const double err =
            relErr(m->run(inputsSD3(g.io), probes).at("out.sample"), g.io.at("out.sample"));
        std::printf("  sd35 from the Stability layout: rel err %.3e\n", err);
        EXPECT_LE(err, 1e-4);
    }
}

TEST(SD3TransformerSingleFile, ErrorsNameTheFileKey) {
    const std::string p = "model.diffusion_model.";
    const WeightMap good = toStabilityLayoutSD3(openSD3("sd35").weights, 2, p);
    auto expectError = [&](const WeightMap& file, const std::vector<std::string>& needles) {
        expectThrowNaming<WeightError>([&] { convertSingleFile(file, "sd3x.safetensors"); },
                                       needles);
    };
    auto f = good;
    f.erase(p + "joint_blocks.1.context_block.attn.ln_k.weight");
    expectError(f, {"sd3x.safetensors", p + "joint_blocks.1.context_block.attn.ln_k.weight"});
    f = good;
    f[p + "joint_blocks.0.x_block.attn.qkv.weight"] = torch::zeros({95, 32});
    expectError(f, {p + "joint_blocks.0.x_block.attn.qkv.weight", "96 rows"});
    f = good;
    f[p + "joint_blocks.0.x_block.mystery.weight"] = torch::zeros({2});
    expectError(f, {p + "joint_blocks.0.x_block.mystery.weight"});
    f = good;
    f[p + "pos_embed"] = torch::zeros({1, 90, 32});
    expectError(f, {p + "pos_embed", "square"});
    // SD3's golden has no qk-norm, so 64-wide heads are assumed; its width 32 is not a multiple.
    expectError(toStabilityLayoutSD3(openSD3("sd3").weights, 2, p),
                {p + "x_embedder.proj.weight", "64"});
}

}  // namespace
}  // namespace hs
