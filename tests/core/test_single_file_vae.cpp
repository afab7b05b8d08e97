// The LDM VAE layout: SD 1.5's first_stage_model.* against the golden decode, the golden
// diffusers VAE rewritten in FLUX's ae.safetensors layout (round trip and decode), a 16-channel
// VAE without quant_conv, and errors naming the key.
#include <gtest/gtest.h>

#include "flux1_fixture.h"
#include "families/vae/autoencoder_kl.h"
#include "families/vae/vae_ldm_layout.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;
using test::vaeToLdm;

const std::vector<std::string> kArchitecture{
    "in_channels",     "out_channels",        "block_out_channels",      "layers_per_block",
    "latent_channels", "down_block_types",    "up_block_types",          "norm_num_groups",
    "use_quant_conv",  "use_post_quant_conv", "mid_block_add_attention", "act_fn"};

TEST(SingleFileVae, Sd15CheckpointVaeReproducesTheGoldenDecode) {
    const std::string path = dataPath("golden/sd15_single.safetensors");
    const SingleFileContents f = readSingleFile(path);
    const ConvertedComponent& vae = test::componentIn(f, "vae", "AutoencoderKL");
    test::expectFields(vae.config, test::sd15SingleReference()["vae_config"], kArchitecture);
    EXPECT_EQ(vae.config["scaling_factor"], 0.18215);
    EXPECT_TRUE(vae.config["shift_factor"].is_null());
    EXPECT_EQ(vae.description,
              "AutoencoderKL, LDM layout under first_stage_model., 4 levels [32, 32, 64, 64], 2 "
              "layers per block, 4 latent channels, with quant_conv, fp32; scaling_factor 0.18215 "
              "assumed (SD 1.x/2.x; not stored in the file)");

    test::expectSd15SingleOutput(vae, "vae", "decode.sample");
}

TEST(SingleFileVae, AeLayoutRoundTripsTheGoldenVaeAndDecodesTheSame) {
    const WeightMap diffusers =
        test::openWeights(dataPath("golden/vae/diffusion_pytorch_model.safetensors"));
    const WeightMap ldm = vaeToLdm(diffusers, 2);
    ASSERT_TRUE(ldm.count("decoder.up.1.upsample.conv.weight"));  // diffusers' up_blocks.0
    ASSERT_EQ(ldm.at("encoder.mid.attn_1.q.weight").dim(), 4);
    const test::ScopedDir tmp("vae-ae");
    const std::string& dir = tmp.path;
    const std::string path = test::writeWeights(dir, "ae.safetensors", ldm);
    const WeightMap file = test::openWeights(path);
    EXPECT_EQ(detectSingleFile(file), std::vector<std::string>{"LDM VAE (at the root)"});
    const SingleFileContents f = convertSingleFile(file, path);
    ASSERT_EQ(f.components.size(), 1u);
    const ConvertedComponent& c = f.components[0];
    test::expectSameWeights(c.weights, diffusers);
    const auto golden = test::readJsonAt(dataPath("golden/vae/config.json"));
    test::expectFields(c.config, golden, kArchitecture);
    EXPECT_EQ(c.config["scaling_factor"], golden["scaling_factor"]);
    // The [C, C, 1, 1] attention convolutions became [C, C] views of the mapped file.
    EXPECT_EQ(c.weights.at("decoder.mid_block.attentions.0.to_out.0.weight").data_ptr(),
              file.at("decoder.mid.attn_1.proj_out.weight").data_ptr());

    const NamedTensors io = test::openTensors(dataPath("golden/vae_io.safetensors"));
    const NamedTensors in{{"in.z", io.at("in.z")}};
    ConvertedComponent folder{"vae", "AutoencoderKL", golden, diffusers, ""};
    const auto a = test::runConverted(c, in, path).at("out.decode.sample");
    const auto b = test::runConverted(folder, in).at("out.decode.sample");
    EXPECT_TRUE(torch::equal(a, b));  // the same weights, so the same numbers
    const double err = test::relErr(a, io.at("out.decode.sample"));
    std::printf("  ae-layout golden vae decode rel err %.3e\n", err);
    EXPECT_LE(err, 1e-4);
}

// FLUX's ae: 16 latent channels, no quant_conv / post_quant_conv.
nlohmann::json fluxAeShapedConfig() {
    return test::smallAutoencoderKlConfig({{"block_out_channels", {32, 64}},
                                           {"use_quant_conv", false},
                                           {"use_post_quant_conv", false},
                                           {"mid_block_add_attention", true}});
}

WeightMap randomVae(const nlohmann::json& config) {
    return test::randomWeightsOf(config, "AutoencoderKL", 21);
}

TEST(SingleFileVae, SixteenChannelsWithoutQuantConvAssumeFluxScaling) {
    const nlohmann::json config = fluxAeShapedConfig();
    const WeightMap diffusers = randomVae(config);
    ASSERT_FALSE(diffusers.count("quant_conv.weight"));
    const test::ScopedDir tmp("vae-flux");
    const std::string& dir = tmp.path;
    const std::string path = test::writeWeights(dir, "ae.safetensors", vaeToLdm(diffusers, 2));
    const SingleFileContents f = readSingleFile(path);
    ASSERT_EQ(f.components.size(), 1u);
    const ConvertedComponent& c = f.components[0];
    test::expectFields(c.config, config, kArchitecture);
    EXPECT_EQ(c.config["scaling_factor"], 0.3611);
    EXPECT_EQ(c.config["shift_factor"], 0.1159);
    EXPECT_NE(c.description.find("no quant_conv"), std::string::npos) << c.description;
    EXPECT_NE(c.description.find("scaling_factor 0.3611 and shift_factor 0.1159 assumed (FLUX.1"),
              std::string::npos)
        << c.description;
    test::expectSameWeights(c.weights, diffusers);

    torch::manual_seed(4);
    const NamedTensors in{{"in.z", torch::randn({1, 16, 4, 4})}};
    ConvertedComponent direct{"vae", "AutoencoderKL", config, diffusers, ""};
    EXPECT_TRUE(torch::equal(test::runConverted(c, in).at("out.decode.sample"),
                             test::runConverted(direct, in).at("out.decode.sample")));
}

TEST(SingleFileVae, ErrorsNameTheKey) {
    const WeightMap ldm =
        vaeToLdm(test::openWeights(dataPath("golden/vae/diffusion_pytorch_model.safetensors")), 2);
    const std::string path = "vae.safetensors";

    WeightMap missing = ldm;
    missing.erase("decoder.up.0.block.1.conv2.bias");
    std::string m = test::errorOf<WeightError>([&] { convertSingleFile(missing, path); });
    EXPECT_NE(m.find("vae.safetensors: LDM VAE: missing tensor 'decoder.up.0.block.1.conv2.bias'"),
              std::string::npos)
        << m;

    WeightMap noResnet = ldm;  // a whole decoder resnet gone
    for (auto it = noResnet.begin(); it != noResnet.end();)
        it = it->first.rfind("decoder.up.0.block.1.", 0) == 0 ? noResnet.erase(it) : std::next(it);
    m = test::errorOf<WeightError>([&] { convertSingleFile(noResnet, path); });
    EXPECT_NE(m.find("decoder level 0 has 1 resnets, expected 2 (encoder's + 1)"),
              std::string::npos)
        << m;

    WeightMap unknown = ldm;
    unknown["encoder.mid.attn_2.q.weight"] = torch::zeros({64, 64, 1, 1});
    m = test::errorOf<WeightError>([&] { convertSingleFile(unknown, path); });
    EXPECT_NE(m.find("this layout does not know: 'encoder.mid.attn_2.q.weight'"), std::string::npos)
        << m;
}

}  // namespace
}  // namespace hs
