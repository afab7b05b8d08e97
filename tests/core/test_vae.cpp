// diffusers AutoencoderKL: config, golden parity, arbitrary configs, precision plans, probes.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "families/vae/autoencoder_kl.h"
#include "families/vae/vae_io.h"
#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "test_util.h"

namespace hs {
namespace {

// A config that shares nothing with the golden one: 16 latent channels, 3 levels, 8 groups,
// no mid-block attention, no quant_conv.
nlohmann::json wideConfig() {
    return {
        {"_class_name", "AutoencoderKL"},
        {"in_channels", 3},
        {"out_channels", 3},
        {"down_block_types", {"DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D"}},
        {"up_block_types", {"UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"}},
        {"block_out_channels", {16, 24, 32}},
        {"layers_per_block", 1},
        {"latent_channels", 16},
        {"norm_num_groups", 8},
        {"mid_block_add_attention", false},
        {"use_quant_conv", false},
        {"use_post_quant_conv", true},
        {"scaling_factor", 0.3611},
        {"shift_factor", 0.1159}};
}

// Seeded random weights in checkpoint layout: default (kaiming) convs, norms around 1.
WeightMap randomWeightsVae(const nlohmann::json& config, uint64_t seed = 7) {
    return test::randomCheckpoint(
        seed, [&] { return AutoencoderKL(AutoencoderKLConfig::fromJson(config)); },
        [](const std::string& k) {
            return k.find("norm") != std::string::npos && k.size() > 7 &&
                   k.substr(k.size() - 7) == ".weight";
        });
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// decode.sample, encode.mean, encode.logvar.
HS_CASES(Vae, FamilyGolden, test::GoldenCase("golden/vae", 3));

// A model of `config` with random weights, its io the one input given.
test::ModelCase randomVaeCase(const nlohmann::json& config, const std::string& input,
                              const torch::Tensor& value) {
    const WeightMap weights = randomWeightsVae(config);
    return {"AutoencoderKL", config, weights, {{input, value}}};
}

// The probe points carry the checkpoint's paths: the decoder at Layer level; at Op level, under
// another component name, the encoder of the golden config (mid-block attention, quant_conv).
HS_CASES(Vae, FamilyProbes,
         test::ProbeCase(
             "decoder",
             [] {
                 return randomVaeCase(wideConfig(), "in.z", torch::randn({1, 16, 4, 6}));
             },
             {test::vaeDecoderAtLayer({"vae.decoder.mid_block.resnets.1",
                                       "vae.decoder.up_blocks.0.resnets.1",
                                       "vae.decoder.up_blocks.1.upsamplers.0",
                                       "vae.decoder.up_blocks.2", "vae.decoder.conv_norm_out"})
                  .hasNot({"vae.decoder.conv_in.conv1",
                           "vae.decoder.mid_block.resnets.0.conv1",     // Op granularity
                           "vae.decoder.up_blocks.2.upsamplers.0"})}),  // last block has none
         test::ProbeCase(
             "encoder",
             [] {
                 return randomVaeCase(readJson(dataPath("golden/vae/config.json")), "in.x",
                                      torch::randn({1, 3, 8, 8}));
             },
             {test::ProbeExpectation(ProbeLevel::Op)
                  .has({"first_stage.encoder.conv_in",
                        "first_stage.encoder.down_blocks.0.resnets.0.norm1",
                        "first_stage.encoder.down_blocks.0.resnets.0.act1",
                        "first_stage.encoder.down_blocks.0.resnets.0.conv2",
                        "first_stage.encoder.down_blocks.0.downsamplers.0",
                        "first_stage.encoder.down_blocks.1.resnets.0.conv_shortcut",
                        "first_stage.encoder.mid_block.attentions.0.group_norm",
                        "first_stage.encoder.mid_block.attentions.0.to_q",
                        "first_stage.encoder.mid_block.attentions.0.sdpa",
                        "first_stage.encoder.mid_block.attentions.0.to_out.0",
                        "first_stage.encoder.mid_block.attentions.0",
                        "first_stage.encoder.conv_act", "first_stage.encoder.conv_out",
                        "first_stage.quant_conv"})},
             "first_stage"));

HS_CASES(Vae, FamilyConfig,
         test::ConfigCase{
             "wide",
             wideConfig,
             [](const nlohmann::json& j) { AutoencoderKLConfig::fromJson(j); },
             {{"down_block_types[1]",
               [](auto& j) { j["down_block_types"][1] = "CrossAttnDownBlock2D"; }},
              {"up_block_types[2]",
               [](auto& j) { j["up_block_types"][2] = "AttnUpDecoderBlock2D"; }},
              test::setting("act_fn", "gelu"),
              test::setting("block_out_channels", {16, 20, 32}, "block_out_channels[1]"),
              test::setting("latent_channels", "16"),
              test::setting("up_block_types", {"UpDecoderBlock2D"})}});

HS_CASES(Vae, FamilyInputs,
         test::InputCase{
             "wide",
             [] {
                 return test::ModelCase{
                     "AutoencoderKL", wideConfig(), randomWeightsVae(wideConfig()), {}};
             },
             {test::inputsOnly({{"in.z", torch::zeros({1, 4, 8, 8})}}, {"in.z", "[B, 16, h, w]"}),
              test::inputsOnly({{"in.z", torch::zeros({16, 8, 8})}}, {"in.z", "[B, 16, h, w]"}),
              test::inputsOnly({{"in.x", torch::zeros({1, 3, 24, 30})}},
                               {"in.x", "multiples of 4"}),
              test::inputsOnly({{"out.decode.sample", torch::zeros({1})}}, {"in.z", "in.x"})}});

// ---- the VAE's own ------------------------------------------------------------------------------

TEST(VaeConfig, ReadsEveryField) {
    auto c = AutoencoderKLConfig::fromJson(readJson(dataPath("golden/vae/config.json")));
    EXPECT_EQ(c.blockOutChannels, (std::vector<int>{32, 64}));
    EXPECT_EQ(c.latentChannels, 4);
    EXPECT_EQ(c.layersPerBlock, 1);
    EXPECT_EQ(c.normNumGroups, 32);
    EXPECT_DOUBLE_EQ(c.scalingFactor, 0.18215);
    EXPECT_FALSE(c.shiftFactor.has_value());
    EXPECT_TRUE(c.forceUpcast && c.useQuantConv && c.usePostQuantConv && c.midBlockAddAttention);
    EXPECT_EQ(c.downFactor(), 2);

    auto w = AutoencoderKLConfig::fromJson(wideConfig());
    ASSERT_TRUE(w.shiftFactor.has_value());
    EXPECT_DOUBLE_EQ(*w.shiftFactor, 0.1159);
    EXPECT_FALSE(w.useQuantConv);
    EXPECT_FALSE(w.midBlockAddAttention);
    EXPECT_EQ(w.downFactor(), 4);
    // Latent scaling round-trips: z = latents / s + shift.
    auto lat = torch::randn({1, 16, 2, 2});
    auto z = unscaleLatents(lat, w);
    EXPECT_TRUE(torch::allclose(z, lat / 0.3611 + 0.1159));
    EXPECT_TRUE(torch::allclose(scaleLatents(z, w), lat, 1e-5, 1e-6));
}

TEST(Vae, ArbitraryConfigShapesAndBf16Agreement) {
    const auto config = wideConfig();
    const auto weights = randomWeightsVae(config);
    EXPECT_FALSE(weights.count("quant_conv.weight"));
    EXPECT_TRUE(weights.count("post_quant_conv.weight"));
    EXPECT_TRUE(weights.count("decoder.up_blocks.2.resnets.1.conv2.weight"));
    EXPECT_TRUE(weights.count("encoder.down_blocks.1.resnets.0.conv_shortcut.weight"));
    EXPECT_FALSE(weights.count("decoder.up_blocks.2.upsamplers.0.conv.weight"));  // last block
    for (const auto& kv : weights) EXPECT_EQ(kv.first.find("attentions"), std::string::npos);

    torch::manual_seed(11);
    NamedTensors in{{"in.z", torch::randn({3, 16, 6, 10})},
                    {"in.x", torch::rand({3, 3, 24, 40}) * 2 - 1},
                    {"note", torch::zeros({1})}};
    ProbeContext p32 = contextFor("");
    auto m32 = loadAutoencoderKL(config, weights, p32.policy());
    auto o32 = runAutoencoderKL(m32, in, p32);
    EXPECT_EQ(o32.at("out.decode.sample").sizes(), (std::vector<int64_t>{3, 3, 24, 40}));
    EXPECT_EQ(o32.at("out.encode.mean").sizes(), (std::vector<int64_t>{3, 16, 6, 10}));
    EXPECT_EQ(o32.at("out.encode.logvar").sizes(), (std::vector<int64_t>{3, 16, 6, 10}));
    std::map<CpuBf16, NamedTensors> byMode;
    for (CpuBf16 mode : test::bf16ModesHere()) {
        test::ScopedCpuBf16 scoped(mode);
        ProbeContext pbf = contextFor("vae=bf16");
        auto mbf = loadAutoencoderKL(config, weights, pbf.policy());
        const auto& w = mbf->named_parameters()["decoder.conv_in.weight"];
        // Native holds bf16 tensors; emulated holds fp32 tensors of bf16 values.
        EXPECT_EQ(w.scalar_type(), mode == CpuBf16::Native ? torch::kBFloat16 : torch::kFloat);
        EXPECT_TRUE(torch::equal(w.to(torch::kFloat), roundTo(w.to(torch::kFloat), Format::BF16)));
        auto obf = runAutoencoderKL(mbf, in, pbf);
        for (const auto& kv : o32) {
            const double err = relErr(obf.at(kv.first), kv.second);
            std::printf("  bf16 %-8s vs fp32 %-20s rel err %.3e\n", cpuBf16Name(mode).c_str(),
                        kv.first.c_str(), err);
            EXPECT_LT(err, 3e-2) << kv.first;  // bf16 keeps 8 bits: ~0.4% an op, ~20 ops deep
            EXPECT_GT(err, 0.0) << kv.first;   // bf16 really ran
            EXPECT_EQ(obf.at(kv.first).scalar_type(), torch::kFloat);
        }
        byMode[mode] = obf;
    }
    if (byMode.size() == 2)
        for (const auto& kv : o32) {
            const double err = relErr(byMode[CpuBf16::Native].at(kv.first),
                                      byMode[CpuBf16::Emulated].at(kv.first));
            std::printf("  bf16 native vs emulated %-20s rel err %.3e\n", kv.first.c_str(), err);
            EXPECT_LT(err, 3e-2) << kv.first;
        }
    // A plan that splits the model: bf16 overall, one up block in fp32.
    ProbeContext pmix = contextFor("vae=bf16,vae.decoder.up_blocks.1=fp32");
    auto mmix = loadAutoencoderKL(config, weights, pmix.policy());
    EXPECT_EQ(mmix->named_parameters()["decoder.up_blocks.1.resnets.0.conv1.weight"].scalar_type(),
              torch::kFloat);
    auto omix = runAutoencoderKL(mmix, {{"in.z", in.at("in.z")}}, pmix);
    EXPECT_LT(relErr(omix.at("out.decode.sample"), o32.at("out.decode.sample")), 3e-2);
}

TEST(Vae, WeightErrorsNameTheKey) {
    const auto config = wideConfig();
    ProbeContext probes = contextFor("");
    auto expectError = [&](const WeightMap& w, const std::string& key) {
        try {
            loadAutoencoderKL(config, w, probes.policy());
            ADD_FAILURE() << "no WeightError for " << key;
        } catch (const WeightError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    };
    const auto good = randomWeightsVae(config);
    auto w = good;
    w.erase("decoder.mid_block.resnets.1.norm2.bias");
    expectError(w, "decoder.mid_block.resnets.1.norm2.bias");
    w = good;
    w["quant_conv.weight"] = torch::zeros({32, 32, 1, 1});  // use_quant_conv is false
    expectError(w, "quant_conv.weight");
    w = good;
    w["encoder.down_blocks.0.downsamplers.0.conv.weight"] = torch::zeros({16, 16, 1, 1});
    expectError(w, "encoder.down_blocks.0.downsamplers.0.conv.weight");
}

// fp16 emulated on CPU: one decoder block scaled past 65504 must be the first non-finite point.
TEST(Vae, Fp16OverflowIsNamedAtTheBlock) {
    ModelCase c{"AutoencoderKL", wideConfig(), randomWeightsVae(wideConfig()), {}};
    const std::string key = "decoder.up_blocks.1.resnets.0.conv2.weight";
    c.weights[key] = c.weights[key] * 1e5;  // conv2 outputs reach ~1e6
    torch::manual_seed(3);
    const auto first =
        test::expectTheScaledDecoderBlockOverflowsFp16(c, {{"in.z", torch::randn({1, 16, 4, 6})}});
    ASSERT_TRUE(first && first->input.has_value());
    EXPECT_EQ(first->input->name, "vae.decoder.up_blocks.0");
}

}  // namespace
}  // namespace hs
