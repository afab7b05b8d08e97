// Detecting what a single file holds: an LDM checkpoint's three parts, a ComfyUI all-in-one
// file, a file holding only what Halfscope cannot load, files matching nothing, a truncated file.
#include <gtest/gtest.h>

#include <filesystem>

#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;

WeightMap withPrefix(const WeightMap& w, const std::string& prefix) {
    WeightMap out;
    for (const auto& kv : w) out.emplace(prefix + kv.first, kv.second);
    return out;
}

TEST(SingleFile, Sd15CheckpointHoldsUnetVaeAndClip) {
    const std::string path = dataPath("golden/sd15_single.safetensors");
    const WeightMap all = test::openWeights(path);
    EXPECT_EQ(detectSingleFile(all),
              (std::vector<std::string>{
                  "Stable Diffusion UNet (LDM layout) (model.diffusion_model.*)",
                  "LDM VAE (first_stage_model.*)",
                  "CLIP text encoder (transformers keys) (cond_stage_model.transformer.*)"}));
    const SingleFileContents f = convertSingleFile(all, path);
    ASSERT_EQ(f.components.size(), 3u);
    EXPECT_EQ(f.components[0].slot, "unet");
    EXPECT_EQ(f.components[1].slot, "vae");
    EXPECT_EQ(f.components[2].slot, "text_encoder");
    EXPECT_TRUE(f.notConverted.empty());
    EXPECT_TRUE(f.ignored.empty());
}

TEST(SingleFile, AllInOneFileFillsEverySlotAndListsWhatItIgnores) {
    WeightMap all = withPrefix(test::openWeights(dataPath("golden/flux_bfl.safetensors")),
                               "model.diffusion_model.");
    for (const auto& kv : withPrefix(test::openWeights(dataPath("golden/clip/model.safetensors")),
                                     "text_encoders.clip_l.transformer."))
        all.insert(kv);
    for (const auto& kv : withPrefix(test::openWeights(dataPath("golden/t5/model.safetensors")),
                                     "text_encoders.t5xxl.transformer."))
        all.insert(kv);
    all["alphas_cumprod"] = torch::ones({1000});
    const SingleFileContents f = convertSingleFile(all, "flux1-dev-aio.safetensors");
    EXPECT_EQ(test::slotsOf(f), (std::vector<std::string>{"transformer FluxTransformer2DModel",
                                                          "text_encoder CLIPTextModel",
                                                          "text_encoder_2 T5EncoderModel"}));
    EXPECT_EQ(f.ignored, std::vector<std::string>{"alphas_cumprod"});
    EXPECT_TRUE(f.notConverted.empty());
}

TEST(SingleFile, AFileHoldingOnlyWhatCannotBeLoadedSaysWhatItHolds) {
    const WeightMap hunyuan{
        {"model.diffusion_model.txt_in.individual_token_refiner.blocks.0.adaLN_modulation.1.bias",
         torch::zeros({4})},
        {"model.diffusion_model.img_in.proj.weight", torch::zeros({4, 4})}};
    const std::string m =
        test::errorOf<WeightError>([&] { convertSingleFile(hunyuan, "video.safetensors"); });
    EXPECT_EQ(m,
              "video.safetensors: holds nothing Halfscope can load yet: HunyuanVideo transformer "
              "(model.diffusion_model.*, 2 tensors): not converted: Halfscope has no family for "
              "it yet");
}

TEST(SingleFile, AFileMatchingNothingListsTheLayoutsAndItsFirstKeys) {
    const WeightMap odd{{"net.0.weight", torch::zeros({4, 2})}, {"net.0.bias", torch::zeros({4})}};
    std::string m = test::errorOf<WeightError>([&] { convertSingleFile(odd, "odd.safetensors"); });
    EXPECT_EQ(m,
              "odd.safetensors: no single-file layout Halfscope knows matches this file (known: "
              "Flux.2 transformer, Chroma transformer, HunyuanVideo transformer, SD3 MMDiT, Black "
              "Forest Labs Flux transformer, Cosmos-Predict2 / Anima DiT (NVIDIA layout), "
              "Qwen-Image transformer (ComfyUI), Anima "
              "LLM adapter, Stable Diffusion UNet (LDM layout), Stable Diffusion "
              "UNet EMA copies, LDM VAE, Wan VAE, CLIP "
              "text encoder (transformers keys), OpenCLIP text encoder (SD 2.x / SDXL layout), T5 "
              "encoder (transformers keys), Qwen text encoder (transformers keys)). It holds 2 "
              "tensors, beginning 'net.0.bias' [4], 'net.0.weight' [4, 2].");
    EXPECT_TRUE(detectSingleFile(odd).empty());

    // A diffusers component's own weights file: pointed at its folder instead.
    const std::string flux = dataPath("golden/flux/diffusion_pytorch_model.safetensors");
    m = test::errorOf<WeightError>([&] { readSingleFile(flux); });
    EXPECT_NE(m.find("Its keys look like diffusers' own: open the component folder"),
              std::string::npos)
        << m;
}

TEST(SingleFile, ATruncatedFileIsRefusedByTheReader) {
    const test::ScopedDir tmp("single-truncated");
    const std::string& dir = tmp.path;
    const std::string path = dir + "/flux1-dev.safetensors";
    std::filesystem::copy_file(dataPath("golden/flux_bfl.safetensors"), path);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 100);
    const std::string m = test::errorOf<FileError>([&] { readSingleFile(path); });
    EXPECT_NE(m.find(path), std::string::npos) << m;
}

}  // namespace
}  // namespace hs
