// The Black Forest Labs Flux layout: the golden BFL file against diffusers' folder and outputs,
// ComfyUI's prefix, a schnell-style model of another shape, and errors naming the block or key.
#include <gtest/gtest.h>

#include "families/flux/flux_bfl_layout.h"
#include "families/flux/flux_transformer.h"
#include "flux1_fixture.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;
using test::fluxToBfl;

nlohmann::json goldenConfig() {
    auto j = test::readJsonAt(dataPath("golden/flux/config.json"));
    j.erase("_diffusers_version");
    return j;
}

TEST(SingleFileFlux, GoldenBflFileLoadsAsTheDiffusersFolderAndReproducesItsOutput) {
    const std::string path = dataPath("golden/flux_bfl.safetensors");
    const WeightMap bfl = test::openWeights(path);
    const SingleFileContents f = convertSingleFile(bfl, path);
    ASSERT_TRUE(test::holdsOneComponent(f, "transformer", "FluxTransformer2DModel"));
    const ConvertedComponent& c = f.components[0];
    EXPECT_EQ(c.config, goldenConfig());  // axes_dims_rope [4, 4, 8] by the inferred rule
    const WeightMap diffusers =
        test::openWeights(dataPath("golden/flux/diffusion_pytorch_model.safetensors"));
    test::expectSameWeights(c.weights, diffusers);
    EXPECT_EQ(c.description,
              "Flux transformer, Black Forest Labs layout, 1 double + 1 single blocks, fp32; 2 "
              "heads x 16, guidance embedding (FLUX.1-dev style), 4 input channels; "
              "axes_dims_rope [4, 4, 8] inferred (not in the file)");

    // The split q/k/v are views into the mapped file; only the shift/scale swap copies.
    const auto& qkv = bfl.at("double_blocks.0.img_attn.qkv.weight");  // [96, 32]
    EXPECT_EQ(c.weights.at("transformer_blocks.0.attn.to_q.weight").data_ptr(), qkv.data_ptr());
    EXPECT_EQ(c.weights.at("transformer_blocks.0.attn.to_v.weight").data_ptr<float>(),
              qkv.data_ptr<float>() + 2 * 32 * 32);
    EXPECT_EQ(c.weights.at("single_transformer_blocks.0.proj_mlp.bias").data_ptr<float>(),
              bfl.at("single_blocks.0.linear1.bias").data_ptr<float>() + 3 * 32);
    EXPECT_NE(c.weights.at("norm_out.linear.weight").data_ptr(),
              bfl.at("final_layer.adaLN_modulation.1.weight").data_ptr());

    const NamedTensors io = test::openTensors(dataPath("golden/flux_io.safetensors"));
    const NamedTensors out = test::runConverted(c, io, path);
    const auto& ref = io.at("out.sample");
    test::expectCloseTo(out.at("out.sample"), ref, "flux_bfl out.sample");
}

TEST(SingleFileFlux, ComfyUiPrefixConvertsTheSame) {
    const test::ScopedDir tmp("flux-prefix");
    const std::string& dir = tmp.path;
    const WeightMap bfl = test::openWeights(dataPath("golden/flux_bfl.safetensors"));
    const std::string path =
        test::writeWeights(dir, "flux1-dev-comfy.safetensors", bfl, "model.diffusion_model.");
    const SingleFileContents f = readSingleFile(path);
    ASSERT_EQ(f.components.size(), 1u);
    EXPECT_EQ(f.components[0].config, goldenConfig());
    test::expectSameWeights(
        f.components[0].weights,
        test::openWeights(dataPath("golden/flux/diffusion_pytorch_model.safetensors")));
    EXPECT_NE(f.components[0].description.find("layout under model.diffusion_model.,"),
              std::string::npos);
    EXPECT_EQ(
        detectSingleFile(test::openWeights(path)),
        std::vector<std::string>{"Black Forest Labs Flux transformer (model.diffusion_model.*)"});
}

// 3 double + 2 single blocks, 3 heads x 16, 16 input channels, no guidance: the schnell shape.
nlohmann::json schnellConfig() {
    return test::smallFluxTransformerConfig(3, 2, 3, {{"axes_dims_rope", {4, 4, 8}}});
}

WeightMap randomFlux(const nlohmann::json& config) {
    return test::randomWeightsOf(config, "FluxTransformer2DModel", 11);
}

TEST(SingleFileFlux, SchnellStyleFileHasNoGuidanceAndRunsLikeItsDiffusersWeights) {
    const nlohmann::json config = schnellConfig();
    const WeightMap diffusers = randomFlux(config);
    const test::ScopedDir tmp("flux-schnell");
    const std::string& dir = tmp.path;
    const std::string path =
        test::writeWeights(dir, "schnell.safetensors", fluxToBfl(diffusers, 3, 2));
    const SingleFileContents f = readSingleFile(path);
    ASSERT_EQ(f.components.size(), 1u);
    const ConvertedComponent& c = f.components[0];
    EXPECT_EQ(c.config, config);
    EXPECT_FALSE(c.config["guidance_embeds"].get<bool>());
    EXPECT_NE(c.description.find("no guidance embedding (FLUX.1-schnell style)"),
              std::string::npos);
    test::expectSameWeights(c.weights, diffusers);

    const NamedTensors in = test::smallFluxInputs();
    ConvertedComponent direct{"transformer", c.className, config, diffusers, ""};
    const auto a = test::runConverted(c, in).at("out.sample");
    const auto b = test::runConverted(direct, in).at("out.sample");
    EXPECT_TRUE(torch::equal(a, b));
}

TEST(SingleFileFlux, HeadDim128GetsFluxRopeAxesAndOddDimsAreRefused) {
    EXPECT_EQ(fluxAxesDimsRopeFor(128), (std::vector<int>{16, 56, 56}));
    EXPECT_EQ(fluxAxesDimsRopeFor(16), (std::vector<int>{4, 4, 8}));
    EXPECT_EQ(fluxAxesDimsRopeFor(64), (std::vector<int>{16, 16, 32}));
    EXPECT_THROW(fluxAxesDimsRopeFor(20), ConfigError);
}

TEST(SingleFileFlux, ErrorsNameTheMissingBlockOrTensor) {
    const WeightMap full = fluxToBfl(randomFlux(schnellConfig()), 3, 2);
    const std::string path = "flux1-test.safetensors";

    WeightMap gap = full;  // double block 1 removed: blocks 0 and 2 remain
    for (auto it = gap.begin(); it != gap.end();)
        it = it->first.rfind("double_blocks.1.", 0) == 0 ? gap.erase(it) : std::next(it);
    std::string m = test::errorOf<WeightError>([&] { convertSingleFile(gap, path); });
    EXPECT_NE(m.find("flux1-test.safetensors: Black Forest Labs Flux transformer: double block 1 "
                     "is missing: no 'double_blocks.1.*' tensors"),
              std::string::npos)
        << m;

    WeightMap noProj = full;
    noProj.erase("double_blocks.2.txt_attn.proj.bias");
    m = test::errorOf<WeightError>([&] { convertSingleFile(noProj, path); });
    EXPECT_NE(m.find("missing tensor 'double_blocks.2.txt_attn.proj.bias'"), std::string::npos)
        << m;

    WeightMap extra = full;
    extra["single_blocks.1.lora_up.weight"] = torch::zeros({2, 2});
    m = test::errorOf<WeightError>([&] { convertSingleFile(extra, path); });
    EXPECT_NE(m.find("1 tensor(s) this layout does not know: 'single_blocks.1.lora_up.weight'"),
              std::string::npos)
        << m;

    WeightMap narrow = full;  // linear1 without the MLP rows
    narrow["single_blocks.0.linear1.weight"] =
        full.at("single_blocks.0.linear1.weight").narrow(0, 0, 3 * 48);
    m = test::errorOf<WeightError>([&] { convertSingleFile(narrow, path); });
    EXPECT_NE(m.find("'single_blocks.0.linear1.weight' has shape [144, 48], expected 336 rows"),
              std::string::npos)
        << m;
}

// The parity bar through the command users run: run-module on the BFL file reproduces
// diffusers' output of the flux golden case.
TEST(SingleFileFlux, RunModuleOnTheBflFileMatchesTheGoldenOutput) {
    const test::ScopedDir tmp("flux-bfl-cli");
    const std::string out = tmp.path + "/out.safetensors";
    int status = -1;
    const std::string printed = test::runCli(
        "run-module --model '" + dataPath("golden/flux_bfl.safetensors") + "' --inputs '" +
            dataPath("golden/flux_io.safetensors") + "' --output '" + out + "'",
        status);
    ASSERT_EQ(status, 0) << printed;
    EXPECT_NE(printed.find("Black Forest Labs layout"), std::string::npos) << printed;
    EXPECT_NE(printed.find("as 'transformer'"), std::string::npos) << printed;
    const auto got = test::openWeights(out).at("out.sample");
    const auto want = test::openWeights(dataPath("golden/flux_io.safetensors")).at("out.sample");
    const double rel = ((got - want).norm() / want.norm()).item<double>();
    std::cout << "[ flux_bfl run-module ] relative error " << rel << "\n";
    EXPECT_LE(rel, 1e-4);
}

}  // namespace
}  // namespace hs
