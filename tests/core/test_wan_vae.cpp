// diffusers AutoencoderKLQwenImage / AutoencoderKLWan for images (one frame): config, golden
// parity through the family, another configuration of the Wan class against the plain-PyTorch
// port, the VaeComponent role, probes, fp16 overflow, and errors naming the field, key or input.
//
// tests/data/wan_vae/wan21_tiny* were made with
//   /usr/bin/python3 bench/reference/wan_vae_reference.py make-wan tests/data/wan_vae/wan21_tiny
// (the port reproduces diffusers' golden outputs to 1e-6: its `check` command), and
// tests/data/wan_vae/qwen_vae_original.safetensors (the golden weights in the original Wan
// layout, keys as diffusers' convert_wan_vae_to_diffusers reads them) with
//   /usr/bin/python3 bench/reference/wan_vae_reference.py original tests/data/golden/qwen_vae \
//       tests/data/wan_vae/qwen_vae_original.safetensors
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "families/wan_vae/wan_vae_family.h"
#include "family_suites.h"
#include "golden_helpers.h"
#include "io/safetensors.h"
#include "models/registry.h"
#include "models/run_component.h"
#include "models/single_file.h"
#include "test_util.h"

namespace hs {
namespace {

using CaseWanVae = test::ModelCase;

// A folder of the test data and its io file, copied out of the mapped files.
CaseWanVae openCaseWanVae(const std::string& dir, const std::string& io) {
    return test::openCase(dir, io, true);
}

std::shared_ptr<WanVaeComponent> loadThroughFamilyWanVae(const CaseWanVae& c,
                                                         const PrecisionPolicy& policy,
                                                         const std::string& component = "vae") {
    const auto family =
        FamilyRegistry::global().require(c.config["_class_name"].get<std::string>(), "test");
    auto comp = loadComponent(*family, {"test", c.config, c.weights}, policy, component);
    auto wan = std::dynamic_pointer_cast<WanVaeComponent>(comp);
    EXPECT_TRUE(wan) << "the family must build a WanVaeComponent";
    return wan;
}

// Runs every in.* of the case through run() and compares every out.* with the reference.
void expectParity(const CaseWanVae& c, double tol) {
    ProbeContext probes = contextFor("");
    auto vae = loadThroughFamilyWanVae(c, probes.policy());
    NamedTensors inputs;
    for (const auto& kv : c.io)
        if (kv.first.rfind("in.", 0) == 0) inputs.emplace(kv.first, kv.second);
    auto out = vae->run(inputs, probes);
    int compared = 0;
    for (const auto& kv : c.io) {
        if (kv.first.rfind("out.", 0) != 0) continue;
        ASSERT_TRUE(out.count(kv.first)) << "no output " << kv.first;
        ASSERT_EQ(out.at(kv.first).sizes(), kv.second.sizes()) << kv.first;
        const double err = relErr(out.at(kv.first), kv.second);
        std::printf("  %-20s rel err %.3e (max |ref| %.3f)\n", kv.first.c_str(), err,
                    kv.second.abs().max().item<double>());
        EXPECT_LE(err, tol) << kv.first;
        ++compared;
    }
    EXPECT_EQ(compared, 3);
}

// ---- the suites every family runs (family_suites.h) ------------------------------------------

// Qwen-Image's VAE class against diffusers; AutoencoderKLWan at other widths (16 latent
// channels, four levels, two resnets per level, a wider decoder (decoder_base_dim), encoder
// attention at scale 1/2, batch 2, a non-square image) against the port. Each: decode.sample,
// encode.mean, encode.logvar.
HS_CASES(WanVae, FamilyGolden, test::GoldenCase("golden/qwen_vae", 3).copied(),
         test::GoldenCase("wan_vae/wan21_tiny", 3).copied());

// The Wan case with the one input `input` given.
CaseWanVae wan21Given(const std::string& input, const torch::Tensor& value) {
    CaseWanVae c = openCaseWanVae("wan_vae/wan21_tiny", "wan_vae/wan21_tiny_io.safetensors");
    c.io = {{input, value}};
    return c;
}

// The probe points carry the checkpoint's paths: the decoder at Layer level, the encoder at Op
// level under another component name.
HS_CASES(
    WanVae, FamilyProbes,
    test::ProbeCase("decoder",
                    [] {
                        return wan21Given("in.z", torch::randn({1, 16, 1, 2, 3}));
                    },
                    {test::vaeDecoderAtLayer({"vae.decoder.mid_block.attentions.0",
                                              "vae.decoder.up_blocks.0.resnets.2",
                                              "vae.decoder.up_blocks.2.upsamplers.0",
                                              "vae.decoder.up_blocks.3", "vae.decoder.norm_out"})
                         .hasNot({"vae.decoder.up_blocks.3.upsamplers.0",  // the last has none
                                  "vae.decoder.up_blocks.0.resnets.0.conv1"})}),  // Op granularity
    test::ProbeCase(
        "encoder",
        [] {
            return wan21Given("in.x", torch::rand({1, 3, 1, 16, 16}));
        },
        {test::ProbeExpectation(ProbeLevel::Op)
             .has({"first_stage.encoder.conv_in", "first_stage.encoder.down_blocks.0.norm1",
                   "first_stage.encoder.down_blocks.3.conv_shortcut",
                   "first_stage.encoder.down_blocks.2", "first_stage.encoder.down_blocks.4.to_qkv",
                   "first_stage.encoder.down_blocks.4.sdpa",
                   "first_stage.encoder.mid_block.attentions.0.proj",
                   "first_stage.encoder.conv_act", "first_stage.quant_conv"})},
        "first_stage"));

HS_CASES(WanVae, FamilyConfig,
         test::ConfigCase::ofFile<WanVaeConfig>(
             "wan21_tiny", "wan_vae/wan21_tiny/config.json",
             {test::setting("is_residual", true),
              test::setting("patch_size", 2),
              test::setting("temperal_downsample", {false, true}),
              test::setting("latents_std", {1.0, 2.0}),
              {"latents_mean",
               [](nlohmann::json& j) {
                   j["z_dim"] = 4;
                   j.erase("latents_mean");
               }},
              test::setting("base_dim", "8"),
              test::setting("dim_mult", {1, 2, 100000}, "dim_mult[2]"),
              test::setting("_class_name", "AutoencoderKLHunyuanVideo")}));

HS_CASES(
    WanVae, FamilyInputs,
    test::InputCase{
        "qwen_vae",
        [] { return openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors"); },
        {test::inputsOnly({{"in.z", torch::zeros({1, 8, 3, 4, 4})}}, {"in.z", "3 frames"}),
         test::inputsOnly({{"in.z", torch::zeros({1, 8, 4, 4})}}, {"in.z", "[B, 8, 1, h, w]"}),
         test::inputsOnly({{"in.z", torch::zeros({1, 16, 1, 4, 4})}}, {"in.z", "[B, 8, 1, h, w]"}),
         test::inputsOnly({{"in.x", torch::zeros({1, 3, 1, 16, 18})}}, {"in.x", "multiples of 4"}),
         test::inputsOnly({{"in.sample", torch::zeros({1})}}, {"in.sample", "in.z"}),
         test::inputsOnly({{"out.decode.sample", torch::zeros({1})}}, {"in.z", "in.x"})}});

// ---- Wan's own ----------------------------------------------------------------------------------

TEST(WanVaeConfig, ReadsBothClassNames) {
    auto q = WanVaeConfig::fromJson(readJson(dataPath("golden/qwen_vae/config.json")));
    EXPECT_EQ(q.className, "AutoencoderKLQwenImage");
    EXPECT_EQ(q.zDim, 8);
    EXPECT_EQ(q.dimMult, (std::vector<int>{1, 2, 2}));
    EXPECT_EQ(q.downFactor(), 4);
    EXPECT_EQ(q.encoderDims(), (std::vector<int>{16, 16, 32, 32}));
    EXPECT_EQ(q.decoderDims(), (std::vector<int>{32, 32, 32, 16}));
    EXPECT_EQ(q.temperalDownsample, (std::vector<bool>{false, true}));

    auto w = WanVaeConfig::fromJson(readJson(dataPath("wan_vae/wan21_tiny/config.json")));
    EXPECT_EQ(w.className, "AutoencoderKLWan");
    EXPECT_EQ(w.zDim, 16);
    EXPECT_EQ(w.downFactor(), 8);
    EXPECT_EQ(w.decoderBaseDim, 12);
    EXPECT_EQ(w.attnScales, (std::vector<double>{0.5}));

    // Defaults are diffusers' (Wan 2.1 / Qwen-Image): 16 channels with their mean and std.
    auto d = WanVaeConfig::fromJson({{"_class_name", "AutoencoderKLQwenImage"}});
    EXPECT_EQ(d.baseDim, 96);
    EXPECT_EQ(d.downFactor(), 8);
    ASSERT_EQ(d.latentsStd.size(), 16u);
    EXPECT_DOUBLE_EQ(d.latentsMean[7], 1.5508);
    EXPECT_DOUBLE_EQ(d.latentsStd[8], 3.2687);

    // unscale = latents / (1 / std) + mean, per channel; scale inverts it.
    auto lat = torch::randn({2, 8, 3, 3});
    auto z = wanUnscaleLatents(lat, q);
    for (int c : {0, 3, 7}) {
        const double mean = q.latentsMean[c], stdv = q.latentsStd[c];
        EXPECT_TRUE(torch::allclose(z.select(1, c), lat.select(1, c) * stdv + mean, 1e-5, 1e-6))
            << c;
    }
    EXPECT_TRUE(torch::allclose(wanScaleLatents(z, q), lat, 1e-5, 1e-5));
}

// run-module's code path: the folder's config picks the family by _class_name.
TEST(WanVae, RunModulePathReproducesTheGolden) {
    auto io = TensorSet::open(dataPath("golden/qwen_vae_io.safetensors"));
    NamedTensors inputs;
    for (const auto& n : io.names())
        if (n.rfind("in.", 0) == 0) inputs.emplace(n, io.tensor(n));
    auto run = runComponentFolder(dataPath("golden/qwen_vae"), inputs, ComponentRunOptions{});
    EXPECT_EQ(run.className, "AutoencoderKLQwenImage");
    EXPECT_EQ(run.component, "vae");
    for (const char* k : {"out.decode.sample", "out.encode.mean", "out.encode.logvar"}) {
        ASSERT_TRUE(run.outputs.count(k)) << k;
        EXPECT_LE(relErr(run.outputs.at(k), io.tensor(k)), 1e-4) << k;
    }
}

// A plan that splits the model: bf16 overall, one up block in fp32.
TEST(WanVae, MixedPlanKeepsEachBlocksFormat) {
    auto c = openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors");
    test::ScopedCpuBf16 emulated(CpuBf16::Emulated);
    ProbeContext mix = contextFor("vae=bf16,vae.decoder.up_blocks.1=fp32", ProbeLevel::Layer);
    auto vae = loadThroughFamilyWanVae(c, mix.policy());
    auto params = vae->module().named_parameters();
    const auto& up1 = params["decoder.up_blocks.1.resnets.0.conv1.weight"];
    const auto& up0 = params["decoder.up_blocks.0.resnets.0.conv1.weight"];
    EXPECT_TRUE(torch::equal(up0, roundTo(up0, Format::BF16)));
    EXPECT_FALSE(torch::equal(up1, roundTo(up1, Format::BF16)));  // fp32 values kept
    auto out = vae->run({{"in.z", c.io.at("in.z")}}, mix);
    EXPECT_LT(relErr(out.at("out.decode.sample"), c.io.at("out.decode.sample")), 5e-2);
    int seen = 0;
    for (const auto& r : mix.records()) {
        if (r.name == "vae.decoder.up_blocks.1.resnets.0") {
            EXPECT_EQ(r.format, Format::FP32);
            ++seen;
        }
        if (r.name == "vae.decoder.up_blocks.0.resnets.0") {
            EXPECT_EQ(r.format, Format::BF16);
            ++seen;
        }
    }
    EXPECT_EQ(seen, 2);
}

// The Wan class's case has encoder attention and the time convs the 2d mode leaves unused.
TEST(WanVae, WanClassCaseHoldsAttentionAndTimeConvs) {
    auto c = openCaseWanVae("wan_vae/wan21_tiny", "wan_vae/wan21_tiny_io.safetensors");
    EXPECT_TRUE(c.weights.count("encoder.down_blocks.4.to_qkv.weight"));  // attention entry
    EXPECT_TRUE(c.weights.count("decoder.up_blocks.1.upsamplers.0.time_conv.weight"));
}

TEST(WanVae, VaeRoleDecodesAndEncodesImages) {
    auto c = openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors");
    ProbeContext probes = contextFor("");
    auto vae = loadThroughFamilyWanVae(c, probes.policy());
    VaeComponent& role = *vae;
    EXPECT_EQ(role.latentChannels(), 8);
    EXPECT_EQ(role.downFactor(), 4);
    EXPECT_FALSE(role.forceUpcast());
    torch::NoGradGuard g;
    auto image = role.decode(c.io.at("in.z").squeeze(2), probes);  // [1, 3, 16, 16]
    EXPECT_EQ(image.sizes(), (std::vector<int64_t>{1, 3, 16, 16}));
    EXPECT_LE(relErr(image, c.io.at("out.decode.sample").squeeze(2)), 1e-4);
    auto m = role.encode(c.io.at("in.x").squeeze(2), probes);
    EXPECT_LE(relErr(m.mean, c.io.at("out.encode.mean").squeeze(2)), 1e-4);
    EXPECT_LE(relErr(m.logvar, c.io.at("out.encode.logvar").squeeze(2)), 1e-4);
    // The pipeline's unscale feeds decode: z = latents * std + mean.
    auto lat = torch::randn({1, 8, 4, 4});
    auto z = role.unscale(lat);
    EXPECT_TRUE(torch::allclose(z.select(1, 5), lat.select(1, 5) * 1.5 + 0.5, 1e-5, 1e-6));
}

TEST(WanVae, WeightErrorsNameTheKey) {
    auto c = openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors");
    ProbeContext probes = contextFor("");
    auto expectError = [&](const WeightMap& w, const std::string& key) {
        try {
            loadWanVae(c.config, w, probes.policy());
            ADD_FAILURE() << "no WeightError for " << key;
        } catch (const WeightError& e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    };
    auto w = c.weights;
    w.erase("decoder.up_blocks.0.upsamplers.0.time_conv.weight");  // unused, still required
    expectError(w, "decoder.up_blocks.0.upsamplers.0.time_conv.weight");
    w = c.weights;
    w["decoder.norm_out.gamma"] = torch::ones({16});
    expectError(w, "decoder.norm_out.gamma");
    w = c.weights;
    w["decoder.up_blocks.1.upsamplers.0.time_conv.weight"] = torch::zeros({64, 32, 3, 1, 1});
    expectError(w, "decoder.up_blocks.1.upsamplers.0.time_conv.weight");  // 2d mode has none
}

// fp16 emulated on the CPU: one decoder conv scaled past 65504 is the first non-finite point,
// named at block and op level, while bf16 (and fp32) stay finite.
TEST(WanVae, Fp16OverflowIsNamedAtTheBlock) {
    auto c = openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors");
    const std::string key = "decoder.up_blocks.1.resnets.0.conv2.weight";
    c.weights[key] = c.weights[key] * 1e6;
    test::expectTheScaledDecoderBlockOverflowsFp16(c, {{"in.z", c.io.at("in.z")}});

    const auto z = c.io.at("in.z").squeeze(2);
    torch::NoGradGuard g;
    test::ScopedCpuBf16 emulated(CpuBf16::Emulated);
    ProbeContext pb = contextFor("vae=bf16", ProbeLevel::Module);
    loadThroughFamilyWanVae(c, pb.policy())->decode(z, pb);
    EXPECT_FALSE(pb.firstNonFinite().has_value()) << "bf16 has fp32's range";
}

// bf16 (emulated, and native where the CPU has bf16 instructions) stays near fp32.
TEST(WanVae, Bf16AgreesWithFp32) {
    auto c = openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors");
    NamedTensors in{{"in.z", c.io.at("in.z")}, {"in.x", c.io.at("in.x")}};
    for (CpuBf16 mode : test::bf16ModesHere()) {
        test::ScopedCpuBf16 scoped(mode);
        ProbeContext pbf = contextFor("vae=bf16");
        auto out = loadThroughFamilyWanVae(c, pbf.policy())->run(in, pbf);
        for (const char* k : {"out.decode.sample", "out.encode.mean", "out.encode.logvar"}) {
            const double err = relErr(out.at(k), c.io.at(k));
            std::printf("  bf16 %-8s %-20s rel err %.3e\n", cpuBf16Name(mode).c_str(), k, err);
            EXPECT_LT(err, 5e-2) << k;  // 8 bits, ~25 ops deep; outputs of magnitude <= 1
            EXPECT_GT(err, 0.0) << k;   // bf16 really ran
        }
    }
}

// The original Wan layout (ComfyUI's qwen_image_vae / wan_2.1_vae files): detected, converted
// with a config inferred from the shapes, and reproducing diffusers' golden outputs.
TEST(WanVae, OriginalLayoutSingleFile) {
    const std::string path = dataPath("wan_vae/qwen_vae_original.safetensors");
    auto contents = readSingleFile(path);
    ASSERT_EQ(contents.components.size(), 1u);
    EXPECT_TRUE(contents.notConverted.empty());
    EXPECT_TRUE(contents.ignored.empty());
    const auto& c = contents.components.front();
    EXPECT_EQ(c.slot, "vae");
    EXPECT_EQ(c.className, "AutoencoderKLWan");
    EXPECT_NE(c.description.find("latents_mean/std assumed"), std::string::npos) << c.description;
    EXPECT_EQ(c.config["base_dim"], 16);
    EXPECT_EQ(c.config["dim_mult"], nlohmann::json({1, 2, 2}));
    EXPECT_EQ(c.config["num_res_blocks"], 1);
    EXPECT_EQ(c.config["temperal_downsample"], nlohmann::json({false, true}));

    // The file has 8 latent channels and no statistics: the config names the missing field.
    EXPECT_THROW(
        {
            try {
                WanVaeConfig::fromJson(c.config);
            } catch (const ConfigError& e) {
                EXPECT_NE(std::string(e.what()).find("latents_mean"), std::string::npos);
                throw;
            }
        },
        ConfigError);
    CaseWanVae golden = openCaseWanVae("golden/qwen_vae", "golden/qwen_vae_io.safetensors");
    CaseWanVae converted{c.className, c.config, c.weights, golden.io};
    converted.config["latents_mean"] = golden.config["latents_mean"];
    converted.config["latents_std"] = golden.config["latents_std"];
    EXPECT_EQ(converted.weights.size(), golden.weights.size());
    expectParity(converted, 1e-4);

    // A missing tensor is named as the file spells it.
    auto all = weightMapOf(TensorSet::open(path));
    all.erase("decoder.upsamples.2.time_conv.bias");
    try {
        convertSingleFile(all, "qwen_vae_original.safetensors");
        ADD_FAILURE() << "no error for a missing tensor";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("decoder.upsamples.2.time_conv.bias"),
                  std::string::npos)
            << e.what();
    }
}

// diffusers keys -> the original Wan layout, for a config with `levels` levels of `resnets`
// residual blocks (the inverse of what the layout converts; bench/reference's to_original does
// the same in Python).
WeightMap toOriginalLayout(const WeightMap& w, int levels, int resnets) {
    auto replace = [](std::string& s, const std::string& a, const std::string& b) {
        const auto at = s.find(a);
        if (at != std::string::npos) s.replace(at, a.size(), b);
    };
    std::vector<std::pair<std::string, std::string>> flat;
    for (int i = 0, n = 0; i < levels; ++i) {
        for (int j = 0; j <= resnets; ++j, ++n)
            flat.emplace_back(
                "decoder.up_blocks." + std::to_string(i) + ".resnets." + std::to_string(j) + ".",
                "decoder.upsamples." + std::to_string(n) + ".");
        if (i + 1 < levels)
            flat.emplace_back("decoder.up_blocks." + std::to_string(i) + ".upsamplers.0.",
                              "decoder.upsamples." + std::to_string(n++) + ".");
    }
    WeightMap out;
    for (const auto& kv : w) {
        std::string k = kv.first;
        for (auto [a, b] :
             {std::pair<const char*, const char*>{".norm1.gamma", ".residual.0.gamma"},
              {".conv1.", ".residual.2."},
              {".norm2.gamma", ".residual.3.gamma"},
              {".conv2.", ".residual.6."},
              {".conv_shortcut.", ".shortcut."}})
            replace(k, a, b);
        for (const std::string side : {"encoder", "decoder"}) {
            replace(k, side + ".conv_in.", side + ".conv1.");
            replace(k, side + ".norm_out.", side + ".head.0.");
            replace(k, side + ".conv_out.", side + ".head.2.");
            replace(k, side + ".mid_block.resnets.0.", side + ".middle.0.");
            replace(k, side + ".mid_block.attentions.0.", side + ".middle.1.");
            replace(k, side + ".mid_block.resnets.1.", side + ".middle.2.");
        }
        replace(k, "encoder.down_blocks.", "encoder.downsamples.");
        for (const auto& [a, b] : flat) replace(k, a, b);
        if (k.rfind("quant_conv.", 0) == 0) k = "conv1." + k.substr(11);
        if (k.rfind("post_quant_conv.", 0) == 0) k = "conv2." + k.substr(16);
        out.emplace(k, kv.second);
    }
    return out;
}

// A 16-channel Wan file with encoder attention and a wider decoder: the layout infers
// attn_scales and decoder_base_dim, and diffusers' default latents statistics apply.
TEST(WanVae, OriginalLayoutInfersAttentionAndDecoderWidth) {
    auto c = openCaseWanVae("wan_vae/wan21_tiny", "wan_vae/wan21_tiny_io.safetensors");
    const auto original = toOriginalLayout(c.weights, 4, 2);
    EXPECT_TRUE(original.count("encoder.downsamples.4.to_qkv.weight"));  // attention entry
    WeightMap prefixed;
    for (const auto& kv : original) prefixed.emplace("vae." + kv.first, kv.second);
    auto contents = convertSingleFile(prefixed, "wan_2.1_vae.safetensors");
    ASSERT_EQ(contents.components.size(), 1u);
    const auto& conv = contents.components.front();
    EXPECT_NE(conv.description.find("under vae."), std::string::npos) << conv.description;
    EXPECT_EQ(conv.config["decoder_base_dim"], 12);
    EXPECT_EQ(conv.config["attn_scales"], nlohmann::json({0.5}));
    EXPECT_EQ(conv.config["num_res_blocks"], 2);
    EXPECT_EQ(conv.config["dim_mult"], nlohmann::json({1, 2, 3, 3}));
    const auto cfg = WanVaeConfig::fromJson(conv.config);
    EXPECT_DOUBLE_EQ(cfg.latentsStd[0], 2.8184);  // diffusers' default, assumed
    expectParity(CaseWanVae{conv.className, conv.config, conv.weights, c.io}, 1e-4);
}

}  // namespace
}  // namespace hs
