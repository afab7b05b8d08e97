// halfscope-cli reproduce over a real library: a ComfyUI graph's files found in a ComfyUI tree
// and run again with the image's settings; a file not there exits 2 naming it and the folders
// searched; an A1111 Model renamed by the user found by its Model hash.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../reproduce/reproduce_fixture.h"
#include "../single_file_helpers.h"
#include "../test_util.h"
#include "io/sha256.h"
#include "library_tree.h"
#include "library_tree_suite.h"
#include "runtime/demo_location.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// ComfyUI's Flux graph (UNETLoader, DualCLIPLoader, VAELoader, FluxGuidance, KSampler) over the
// tiny set's file names.
nlohmann::json fluxGraph(const std::string& unet) {
    return nlohmann::json::parse(R"({
      "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "a red square", "clip": ["11", 0]}},
      "7": {"class_type": "CLIPTextEncode", "inputs": {"text": "", "clip": ["11", 0]}},
      "8": {"class_type": "VAEDecode", "inputs": {"samples": ["13", 0], "vae": ["10", 0]}},
      "9": {"class_type": "SaveImage", "inputs": {"images": ["8", 0], "filename_prefix": "x"}},
      "10": {"class_type": "VAELoader", "inputs": {"vae_name": "ae.safetensors"}},
      "11": {"class_type": "DualCLIPLoader", "inputs": {"clip_name1": "t5xxl_tiny.safetensors",
             "clip_name2": "clip_l.safetensors", "type": "flux"}},
      "12": {"class_type": "UNETLoader", "inputs": {"unet_name": ")" +
                                 unet + R"(",
             "weight_dtype": "default"}},
      "13": {"class_type": "KSampler", "inputs": {"model": ["12", 0], "positive": ["26", 0],
             "negative": ["7", 0], "latent_image": ["27", 0], "seed": 77, "steps": 20,
             "cfg": 1.0, "sampler_name": "euler", "scheduler": "simple", "denoise": 1.0}},
      "26": {"class_type": "FluxGuidance", "inputs": {"guidance": 2.5, "conditioning": ["6", 0]}},
      "27": {"class_type": "EmptySD3LatentImage", "inputs": {"width": 32, "height": 32,
             "batch_size": 1}}
    })");
}

std::string pngWithText(const std::string& key, const std::string& text) {
    return test::pngWith(test::pngChunk("tEXt", key + std::string(1, '\0') + text));
}

class LibraryReproduce : public test::LibraryTreeSuite {
protected:
    static void SetUpTestSuite() {
        writeTree("library-reproduce", "/tree");
        fs::create_directories(s_dir->path + "/empty-hub");
    }
    // The library's folders: the ComfyUI and A1111 trees, an empty hub cache, no cache file.
    static std::string libraryArgs() {
        return " --no-cache --comfyui '" + s_tree->comfy + "' --a1111 '" + s_tree->a1111 +
               "' --hf-cache '" + s_dir->path + "/empty-hub'";
    }
    static std::string image(const std::string& name, const std::string& bytes) {
        const std::string p = s_dir->path + "/" + name;
        test::writeBytes(p, bytes);
        return p;
    }
};

TEST_F(LibraryReproduce, FindsAComfyUiGraphsFilesAndRunsItsSettings) {
    const std::string png =
        image("flux.png", pngWithText("prompt", fluxGraph("flux1-tiny.safetensors").dump()));
    int status = -1;
    const std::string dry =
        test::runCli("reproduce '" + png + "' --dry-run --json" + libraryArgs(), status, true);
    ASSERT_EQ(status, 0) << dry;
    const auto j = nlohmann::json::parse(dry);
    const std::string m = s_tree->comfy + "/models";
    EXPECT_EQ(j["resolved"]["flux1-tiny.safetensors"],
              m + "/diffusion_models/flux1-tiny.safetensors");
    EXPECT_EQ(j["resolved"]["ae.safetensors"], m + "/vae/ae.safetensors");
    EXPECT_EQ(j["resolved"]["clip_l.safetensors"], m + "/clip/clip_l.safetensors");
    EXPECT_EQ(j["resolved"]["t5xxl_tiny.safetensors"], m + "/text_encoders/t5xxl_tiny.safetensors");
    EXPECT_EQ(j["family"], "flux");

    // The run: the image's prompt, seed, guidance and size; the command line's steps.
    const std::string out = s_dir->path + "/flux-again.png";
    const std::string run =
        test::runCli("reproduce '" + png + "' --steps 2 --json --out '" + out + "'" + libraryArgs(),
                     status, true);
    ASSERT_NE(status, 2) << run;
    const auto rec = nlohmann::json::parse(run);
    EXPECT_TRUE(fs::exists(out));
    EXPECT_EQ(rec["config"]["prompt"], "a red square");
    EXPECT_EQ(rec["config"]["seed"], 77);
    EXPECT_EQ(rec["config"]["steps"], 2);
    EXPECT_DOUBLE_EQ(rec["config"]["guidance"].get<double>(), 2.5);
    EXPECT_EQ(rec["config"]["width"], 32);
    // The image's sampler and schedule, as ComfyUI computes them.
    EXPECT_EQ(rec["config"]["comfy_sampler"], "euler");
    EXPECT_EQ(rec["config"]["comfy_scheduler"], "simple");
}

TEST_F(LibraryReproduce, AMissingFileExitsTwoNamingItAndTheFoldersSearched) {
    const std::string png =
        image("missing.png", pngWithText("prompt", fluxGraph("flux1-dev.safetensors").dump()));
    int status = -1;
    const std::string out = test::runCli(
        "reproduce '" + png + "' --out '" + s_dir->path + "/x.png'" + libraryArgs(), status);
    EXPECT_EQ(status, 2) << out;
    EXPECT_TRUE(has(out, "were not found:\n  flux1-dev.safetensors\n")) << out;
    EXPECT_FALSE(has(out, "  ae.safetensors\n")) << out;  // found: not listed
    EXPECT_TRUE(has(out, "ComfyUI: " + s_tree->comfy)) << out;
    EXPECT_FALSE(fs::exists(s_dir->path + "/x.png"));
}

TEST_F(LibraryReproduce, ARenamedA1111ModelIsFoundByItsModelHash) {
    const std::string hash = sha256OfFile(s_tree->sdFile).substr(0, 10);
    const std::string text =
        "a photo\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 5, Size: 64x64, Model hash: " +
        hash + ", Model: my-favourite-model";
    int status = -1;
    const std::string dry =
        test::runCli("reproduce '" + image("a1111.png", pngWithText("parameters", text)) +
                         "' --dry-run --json" + libraryArgs(),
                     status, true);
    ASSERT_EQ(status, 0) << dry;
    const auto j = nlohmann::json::parse(dry);
    EXPECT_EQ(j["model_hash"], hash);
    EXPECT_EQ(j["resolved"]["my-favourite-model"], s_tree->sdFile);

    // Another hash: not found, and said so.
    const std::string other = "a photo\nSteps: 20, Seed: 5, Model hash: 0123456789, Model: zz";
    const auto k = nlohmann::json::parse(
        test::runCli("reproduce '" + image("other.png", pngWithText("parameters", other)) +
                         "' --dry-run --json" + libraryArgs(),
                     status, true));
    EXPECT_TRUE(k["resolved"]["zz"].is_null());
}

TEST_F(LibraryReproduce, GivenModelReplacesTheImagesFiles) {
    // The A1111 sample on the embedded demo model at its own size: no library lookup at all.
    int status = -1;
    const std::string run = test::runCli(
        "reproduce '" + test::dataPath("reproduce/a1111_sd15_visible.png") + "' --model '" +
            findDemoModel() + "' --width 64 --height 64 --steps 2 --json --out '" + s_dir->path +
            "/demo.png'",
        status, true);
    ASSERT_NE(status, 2) << run;
    const auto rec = nlohmann::json::parse(run);
    EXPECT_EQ(rec["config"]["prompt"],
              "a photograph of an astronaut riding a horse, highly detailed, 8k");
    EXPECT_EQ(rec["config"]["negative_prompt"], "blurry, lowres, bad anatomy");
    EXPECT_EQ(rec["config"]["seed"], 1234567890);
    EXPECT_DOUBLE_EQ(rec["config"]["guidance"].get<double>(), 6.5);
    std::string notes;
    for (const auto& n : rec["notes"]) notes += n.get<std::string>() + "\n";
    EXPECT_TRUE(has(notes, "not reproduced: Clip skip 2")) << notes;
}

}  // namespace
}  // namespace hs
