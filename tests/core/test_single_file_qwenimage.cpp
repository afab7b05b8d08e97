// ComfyUI's single-file Qwen-Image transformer (qwen_image_*.safetensors): diffusers'
// QwenImageTransformer2DModel keys under "model.diffusion_model." (or at the root), bf16. The
// file under test is one block at Qwen-Image's head width with the plain-PyTorch port's output
// (computed in fp32 from the bf16 weights), written by
//   /usr/bin/python3 bench/reference/qwenimage_reference.py comfy tests/data/qwenimage
#include <gtest/gtest.h>

#include "families/qwenimage/qwenimage_comfy_layout.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;

std::string comfyPath() {
    return dataPath("qwenimage/comfy_qwen_image.safetensors");
}

double relSingleFileQwenimage(const torch::Tensor& got, const torch::Tensor& want) {
    return ((got - want).abs().max() / want.abs().max()).item<double>();
}

// The converted component loaded by its family with every weight in fp32 (the file is bf16).
NamedTensors runInFp32(const ConvertedComponent& c, const NamedTensors& inputs) {
    const auto family = FamilyRegistry::global().require(c.className, "test");
    const PrecisionPolicy policy(PrecisionPlan::parse("transformer=fp32"), torch::kCPU);
    auto component = loadComponent(*family, sourceOf(c, "test"), policy, c.slot);
    ProbeContext probes(policy, ProbeLevel::Off);
    return component->run(inputs, probes);
}

TEST(SingleFileQwenImage, ComfyFileConvertsWithItsConfigInferredAndReproducesThePort) {
    const WeightMap file = test::openWeights(comfyPath());
    EXPECT_EQ(
        detectSingleFile(file),
        (std::vector<std::string>{"Qwen-Image transformer (ComfyUI) (model.diffusion_model.*)"}));
    const SingleFileContents f = convertSingleFile(file, comfyPath());
    ASSERT_TRUE(test::holdsOneComponent(f, "transformer", "QwenImageTransformer2DModel"));
    const ConvertedComponent& c = f.components[0];
    const nlohmann::json want = {{"_class_name", "QwenImageTransformer2DModel"},
                                 {"patch_size", 2},
                                 {"in_channels", 16},
                                 {"out_channels", 4},
                                 {"num_layers", 1},
                                 {"attention_head_dim", 128},
                                 {"num_attention_heads", 1},
                                 {"joint_attention_dim", 32},
                                 {"guidance_embeds", false},
                                 {"axes_dims_rope", {16, 56, 56}}};
    EXPECT_EQ(c.config, want);
    EXPECT_EQ(c.weights.size(), file.size());
    EXPECT_EQ(c.weights.at("transformer_blocks.0.img_mod.1.weight").data_ptr(),
              file.at("model.diffusion_model.transformer_blocks.0.img_mod.1.weight").data_ptr());
    EXPECT_EQ(c.description,
              "Qwen-Image transformer, ComfyUI layout under model.diffusion_model., 1 blocks, "
              "bf16; 1 heads x 128, text width 32, 16 input channels; patch_size 2 and "
              "axes_dims_rope [16, 56, 56] assumed as Qwen-Image has them (not in the file)");
    const NamedTensors io =
        test::openTensors(dataPath("qwenimage/comfy_qwen_image_io.safetensors"));
    const double err =
        relSingleFileQwenimage(runInFp32(c, io).at("out.sample"), io.at("out.sample"));
    std::printf("  comfy qwen-image out.sample rel err %.3e\n", err);
    EXPECT_LE(err, 1e-4);

    // The same keys at the root (ComfyUI's diffusion_models files) convert the same.
    WeightMap root;
    for (const auto& kv : file) root.emplace(kv.first.substr(22), kv.second);
    const SingleFileContents r = convertSingleFile(root, "root.safetensors");
    ASSERT_EQ(r.components.size(), 1u);
    EXPECT_EQ(r.components[0].config, want);
    test::expectSameWeights(r.components[0].weights, c.weights);
}

TEST(SingleFileQwenImage, ErrorsNameTheKeyOrTheMissingRopeSplit) {
    const WeightMap file = test::openWeights(comfyPath());
    const std::string p = "model.diffusion_model.";
    // Another head width: axes_dims_rope is not in the file.
    WeightMap narrow = file;
    for (const char* n : {"norm_q", "norm_k"})
        narrow[p + "transformer_blocks.0.attn." + n + ".weight"] = torch::ones({64});
    std::string m = test::errorOf<ConfigError>([&] { convertSingleFile(narrow, "q.safetensors"); });
    EXPECT_NE(m.find("axes_dims_rope"), std::string::npos) << m;
    EXPECT_NE(m.find("transformer_blocks.0.attn.norm_q.weight"), std::string::npos) << m;
    // A missing tensor is named when the family checks the weights.
    WeightMap missing = file;
    missing.erase(p + "transformer_blocks.0.txt_mlp.net.2.bias");
    const SingleFileContents f = convertSingleFile(missing, "q.safetensors");
    ASSERT_EQ(f.components.size(), 1u);
    const NamedTensors io =
        test::openTensors(dataPath("qwenimage/comfy_qwen_image_io.safetensors"));
    m = test::errorOf<WeightError>([&] { runInFp32(f.components[0], io); });
    EXPECT_NE(m.find("transformer_blocks.0.txt_mlp.net.2.bias"), std::string::npos) << m;
    // proj_out's rows must be 4 x out_channels (patch 2).
    WeightMap odd = file;
    odd[p + "proj_out.weight"] = torch::zeros({15, 128});
    m = test::errorOf<WeightError>([&] { convertSingleFile(odd, "q.safetensors"); });
    EXPECT_NE(m.find("proj_out.weight"), std::string::npos) << m;
}

TEST(SingleFileQwenImage, RunModuleOnTheComfyFileMatchesThePort) {
    const test::ScopedDir tmp("qwenimage-cli");
    const std::string out = tmp.path + "/out.safetensors";
    const std::string io = dataPath("qwenimage/comfy_qwen_image_io.safetensors");
    int status = -1;
    const std::string printed =
        test::runCli("run-module --model '" + comfyPath() + "' --precision fp32 --inputs '" + io +
                         "' --output '" + out + "'",
                     status);
    ASSERT_EQ(status, 0) << printed;
    EXPECT_NE(printed.find("ComfyUI layout"), std::string::npos) << printed;
    const double err = relSingleFileQwenimage(test::openWeights(out).at("out.sample"),
                                              test::openWeights(io).at("out.sample"));
    std::printf("  comfy qwen-image run-module rel err %.3e\n", err);
    EXPECT_LE(err, 1e-4);
}

}  // namespace
}  // namespace hs
