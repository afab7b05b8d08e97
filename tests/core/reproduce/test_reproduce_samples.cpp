// The sample images (three of ComfyUI's published example graphs, an A1111 and a Forge
// infotext): `reproduce --dry-run --json` reports exactly the settings in expected.json.
#include <gtest/gtest.h>

#include <fstream>

#include "../test_util.h"
#include "reproduce_fixture.h"

namespace hs::test {

namespace {

nlohmann::json expectedSamples() {
    std::ifstream in(dataPath("reproduce/expected.json"));
    return nlohmann::json::parse(in);
}

// Every key expected.json gives for an image, compared whole.
void expectSample(const std::string& image, const nlohmann::json& got) {
    const nlohmann::json want = expectedSamples().at(image);
    for (const auto& [key, value] : want.items())
        EXPECT_EQ(got.at(key), value) << image << ": " << key;
}

}  // namespace

TEST(ReproduceSamples, EverySampleGivesTheExpectedSettings) {
    const nlohmann::json samples = expectedSamples();  // items() refers to it
    for (const auto& [image, want] : samples.items()) {
        SCOPED_TRACE(image);
        const nlohmann::json got = nlohmann::json::parse(
            toJson(readReproduceSettings(dataPath("reproduce/" + image))).dump());
        expectSample(image, got);
        // Exactly those settings: denoise (1) and the shifts (not set) are not added.
        EXPECT_EQ(got["settings"].size(), want["settings"].size());
    }
}

TEST(ReproduceSamples, TheUiWorkflowAloneGivesTheSameSettings) {
    // The ComfyUI samples without their API graph: read from the "workflow" chunk.
    for (const char* image : {"comfyui_flux_dev_example.png", "comfyui_sdxl_simple_example.png",
                              "comfyui_cosmos_predict2_2b_t2i_example.png"}) {
        SCOPED_TRACE(image);
        ImageMetadata m = readImageMetadata(dataPath(std::string("reproduce/") + image));
        ASSERT_TRUE(m.prompt && m.workflow);
        m.prompt.reset();
        const ReproduceSettings s = reproduceSettingsFrom(m, image);
        EXPECT_EQ(s.chunk, "workflow");
        expectSample(image, nlohmann::json::parse(toJson(s).dump()));
    }
}

TEST(ReproduceSamples, FamiliesAndUnsupportedAreToldFromTheGraphAndInfotext) {
    auto read = [](const char* image) {
        return readReproduceSettings(dataPath(std::string("reproduce/") + image));
    };
    EXPECT_EQ(read("comfyui_flux_dev_example.png").family, "flux");  // DualCLIPLoader type
    EXPECT_EQ(read("comfyui_cosmos_predict2_2b_t2i_example.png").family, "cosmos");
    EXPECT_EQ(read("forge_flux_visible.png").family, "flux");  // Distilled CFG Scale
    EXPECT_TRUE(read("comfyui_sdxl_simple_example.png").unsupported.empty());
    // "Clip skip: 2" changes the picture and is not run.
    EXPECT_EQ(read("a1111_sd15_visible.png").unsupported, std::vector<std::string>{"Clip skip 2"});
}

TEST(ReproduceSamples, CliDryRunPrintsTheJsonObject) {
    int status = -1;
    const std::string image = dataPath("reproduce/comfyui_sdxl_simple_example.png");
    const std::string out = runCli("reproduce '" + image + "' --dry-run --json", status, true);
    ASSERT_EQ(status, 0) << out;
    expectSample("comfyui_sdxl_simple_example.png", nlohmann::json::parse(out));
    const nlohmann::json j = nlohmann::json::parse(out);
    EXPECT_TRUE(j["family"] == "sdxl");
    EXPECT_TRUE(j["unsupported"].is_array());
    // For people: one setting a line.
    const std::string text = runCli("reproduce '" + image + "' --dry-run", status);
    EXPECT_EQ(status, 0);
    EXPECT_HAS(text, "sampler:         euler");
    EXPECT_HAS(text, "stages:          2 (the first is reproduced)");
}

TEST(ReproduceSamples, CliWithoutTheFilesNamesEachMissingOne) {
    int status = -1;
    const std::string image = dataPath("reproduce/a1111_sd15_visible.png");
    const std::string empty = tempDir("reproduce-empty-hub");
    const std::string out = runCli(
        "reproduce '" + image + "' --no-cache --hf-cache '" + empty + "' --out x.png", status);
    EXPECT_EQ(status, 2);
    EXPECT_HAS(out,
               "the image's model files were not found:\n  v1-5-pruned-emaonly\n"
               "  vae-ft-mse-840000-ema-pruned.safetensors\nsearched:\n"
               "  Hugging Face cache: " +
                   empty);
    // Run options come with running: refused with --dry-run, not ignored.
    const std::string dry = runCli("reproduce '" + image + "' --dry-run --steps 4", status);
    EXPECT_EQ(status, 2);
    EXPECT_HAS(dry, "--steps");
}

}  // namespace hs::test
