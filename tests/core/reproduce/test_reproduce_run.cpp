// From an image's settings to a run: the files its first stage loads, the settings a run takes
// (command-line options winning), the sampler it maps to, SHA-256 for A1111's model hash, and
// file names matched as ComfyUI and A1111 write them.
#include <gtest/gtest.h>

#include <string>

#include "../single_file_helpers.h"
#include "../test_util.h"
#include "io/sha256.h"
#include "library/library_lookup.h"
#include "reproduce/reproduce_run.h"
#include "reproduce_fixture.h"

namespace hs {
namespace {

ReproduceSettings sampleRunSettings(const std::string& image) {
    return readReproduceSettings(test::dataPath("reproduce/" + image));
}

TEST(ReproduceRun, RunFilesAreTheFirstStagesLoaders) {
    // Flux: UNETLoader, DualCLIPLoader and VAELoader all feed the one stage.
    const auto flux = sampleRunSettings("comfyui_flux_dev_example.png");
    EXPECT_EQ(flux.runFiles, flux.files);
    EXPECT_EQ(flux.runFiles.size(), 4u);
    // SDXL base + refiner: the refiner's checkpoint is named but not run.
    const auto sdxl = sampleRunSettings("comfyui_sdxl_simple_example.png");
    EXPECT_EQ(sdxl.runFiles, std::vector<std::string>{"sd_xl_base_1.0.safetensors"});
    // A1111: the Model and VAE fields, and the Model hash of the Model.
    const auto a1111 = sampleRunSettings("a1111_sd15_visible.png");
    EXPECT_EQ(a1111.runFiles, a1111.files);
    EXPECT_EQ(a1111.hashedFile, "v1-5-pruned-emaonly");
    EXPECT_EQ(a1111.modelHash.size(), 10u);
}

TEST(ReproduceRun, SettingsFillTheRunExceptWhatTheCommandLineGives) {
    const auto flux = sampleRunSettings("comfyui_flux_dev_example.png");
    RunConfig cfg;
    auto notes = applyImageSettings(flux, {}, cfg);
    EXPECT_EQ(cfg.prompt, flux.prompt);
    EXPECT_EQ(cfg.seed, flux.seed.get<uint64_t>());
    EXPECT_EQ(cfg.steps, 20);
    EXPECT_EQ(cfg.width, 1024);
    EXPECT_EQ(cfg.height, 1024);
    EXPECT_DOUBLE_EQ(cfg.guidance, 3.5);  // FluxGuidance, not the KSampler's cfg 1
    // The graph's ModelSamplingFlux: its line of the dynamic shift goes to the run.
    EXPECT_TRUE(notes.empty()) << notes.front();
    ASSERT_TRUE(flux.maxShift && flux.baseShift);
    EXPECT_EQ(cfg.maxShift, flux.maxShift);
    EXPECT_EQ(cfg.baseShift, flux.baseShift);
    // Without the node ComfyUI samples FLUX.1 at its default mu 1.15 whatever the size: a flat
    // line.
    ReproduceSettings noNode = flux;
    noNode.maxShift.reset();
    noNode.baseShift.reset();
    RunConfig flat;
    applyImageSettings(noNode, {}, flat);
    EXPECT_EQ(flat.maxShift, 1.15);
    EXPECT_EQ(flat.baseShift, 1.15);

    RunConfig given;
    given.prompt = "mine";
    given.steps = 3;
    given.width = 64;
    applyImageSettings(flux, {"prompt", "steps", "width"}, given);
    EXPECT_EQ(given.prompt, "mine");
    EXPECT_EQ(given.steps, 3);
    EXPECT_EQ(given.width, 64);
    EXPECT_EQ(given.height, 1024);

    // The CFG where there is no distilled guidance; the second stage and img2img said.
    ReproduceSettings s = sampleRunSettings("comfyui_sdxl_simple_example.png");
    s.denoise = 0.6;
    RunConfig sdxl;
    notes = applyImageSettings(s, {}, sdxl);
    EXPECT_DOUBLE_EQ(sdxl.guidance, 8.0);
    EXPECT_EQ(sdxl.negativePrompt, "text, watermark");
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[0].find("denoise 0.6"), std::string::npos) << notes[0];
    EXPECT_NE(notes[1].find("first of the image's 2 sampling stages"), std::string::npos);
}

TEST(ReproduceRun, ComfyModelsRunComfysSamplerAndOthersSayWhatRanInstead) {
    ReproduceSettings s = sampleRunSettings("a1111_sd15_visible.png");  // DPM++ 2M Karras
    RunConfig cfg;
    // A model whose runs take ComfyUI's samplers (Stable Diffusion, the flow models) runs
    // ComfyUI's sampler and schedule by name; the run itself names a fallback.
    auto notes = applyImageSampler(s, {}, true, cfg);
    EXPECT_EQ(cfg.comfySampler, "dpmpp_2m");
    EXPECT_EQ(cfg.comfyScheduler, "karras");
    EXPECT_EQ(cfg.scheduler, "");
    EXPECT_TRUE(notes.empty());

    s.sampler = "uni_pc_bh2";
    cfg = RunConfig();
    notes = applyImageSampler(s, {}, true, cfg);
    EXPECT_EQ(cfg.comfySampler, "uni_pc_bh2");
    EXPECT_TRUE(notes.empty());

    // The command line's sampler wins and nothing is said.
    cfg = RunConfig();
    cfg.scheduler = "euler";
    EXPECT_TRUE(applyImageSampler(s, {"scheduler"}, true, cfg).empty());
    EXPECT_EQ(cfg.scheduler, "euler");
    EXPECT_EQ(cfg.comfySampler, "");

    // FLUX.1's graph: euler + simple, as ComfyUI's names.
    const auto flux = sampleRunSettings("comfyui_flux_dev_example.png");
    RunConfig f;
    EXPECT_TRUE(applyImageSampler(flux, {}, true, f).empty());
    EXPECT_EQ(f.comfySampler, "euler");
    EXPECT_EQ(f.comfyScheduler, "simple");

    // A model without them runs its own scheduler, and says so.
    RunConfig own;
    notes = applyImageSampler(flux, {}, false, own);
    EXPECT_EQ(own.comfySampler, "");
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("euler + simple does not run on this model: its own scheduler ran"),
              std::string::npos)
        << notes[0];
}

TEST(ReproduceRun, Sha256GivesTheStandardDigests) {
    auto digest = [](const std::string& text, size_t piece) {
        Sha256 sha;
        for (size_t at = 0; at < text.size(); at += piece)
            sha.update(text.data() + at, std::min(piece, text.size() - at));
        return sha.hexDigest();
    };
    // FIPS 180-4's examples.
    EXPECT_EQ(digest("", 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(digest("abc", 1), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (size_t piece : {1, 7, 56, 64})
        EXPECT_EQ(digest(two, piece),
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(digest(std::string(1000000, 'a'), 4096),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    test::ScopedDir dir("sha256");
    const std::string file = dir.path + "/x.bin";
    test::writeBytes(file, two);
    EXPECT_EQ(sha256OfFile(file), digest(two, 64));
    EXPECT_EQ(sha256OfFile(file, 3, 5), digest(two.substr(3, 5), 64));
    EXPECT_THROW(sha256OfFile(file, 3, 500), FileError);
    EXPECT_THROW(sha256OfFile(dir.path + "/absent"), FileError);
}

TEST(ReproduceRun, FileNamesMatchAsComfyUiAndA1111WriteThem) {
    LibraryReport library;
    for (const char* f : {"/c/models/unet/flux/flux1-dev.safetensors",
                          "/c/models/vae/ae.safetensors", "/c/models/vae/notae.safetensors",
                          "/w/models/Stable-diffusion/v1-5-pruned-emaonly.safetensors",
                          "/w/models/Stable-diffusion/v1-5-pruned-emaonly-2.safetensors"}) {
        LibraryEntry e;
        e.path = f;
        e.files = {f};
        library.entries.push_back(e);
    }
    using V = std::vector<std::string>;
    EXPECT_EQ(filesNamed(library, "flux\\flux1-dev.safetensors"),
              V{"/c/models/unet/flux/flux1-dev.safetensors"});
    EXPECT_EQ(filesNamed(library, "flux1-dev.safetensors"),
              V{"/c/models/unet/flux/flux1-dev.safetensors"});
    EXPECT_EQ(filesNamed(library, "ae.safetensors"), V{"/c/models/vae/ae.safetensors"});
    EXPECT_EQ(filesNamed(library, "v1-5-pruned-emaonly"),
              V{"/w/models/Stable-diffusion/v1-5-pruned-emaonly.safetensors"});
    EXPECT_TRUE(filesNamed(library, "lux1-dev.safetensors").empty());
    EXPECT_TRUE(filesNamed(library, "").empty());

    ReproduceSettings s = sampleRunSettings("comfyui_flux_dev_example.png");
    resolveImageFiles(s, library, [](const std::string&) -> std::string {
        ADD_FAILURE() << "no hash is needed for a ComfyUI graph";
        return "";
    });
    EXPECT_EQ(s.resolved.at("ae.safetensors"), "/c/models/vae/ae.safetensors");
    EXPECT_EQ(s.resolved.at("clip_l.safetensors"), "");
    const auto j = toJson(s);
    EXPECT_EQ(j["resolved"]["ae.safetensors"], "/c/models/vae/ae.safetensors");
    EXPECT_TRUE(j["resolved"]["clip_l.safetensors"].is_null());
    // The run's parts: the files not found, and each entry holding found ones once.
    EXPECT_EQ(missingRunFiles(s), (V{"clip_l.safetensors", "t5xxl_fp16.safetensors"}));
    s.resolved["clip_l.safetensors"] = "/c/models/vae/ae.safetensors";  // the same entry twice
    const auto picked = entriesOfRunFiles(s, library);
    ASSERT_EQ(picked.size(), 2u);
    EXPECT_EQ(picked[0].path, "/c/models/vae/ae.safetensors");
    EXPECT_EQ(picked[1].path, "/c/models/unet/flux/flux1-dev.safetensors");
}

}  // namespace
}  // namespace hs
