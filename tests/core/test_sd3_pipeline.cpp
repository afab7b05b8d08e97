// Stable Diffusion 3 / 3.5 as users have it: a tiny SD3.5-shaped pipeline (CLIP-L + CLIP-G + T5 +
// an SD3 transformer with dual attention and RMS qk-norm + a 16-channel VAE) as a diffusers
// folder and as ComfyUI's file set, run end to end as StableDiffusion3Pipeline runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "flux1_fixture.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "sd3_fixture.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
using test::errorOf;
using test::maxDifference;

const torch::Device kCpuSd3Pipeline(torch::kCPU);

struct TinySd3 {
    using Files = test::Sd3Files;
    static constexpr const char* kTag = "sd3";
    static Files write(const std::string& root) { return test::writeTinySd3(root); }
    static RunConfig config(int steps) {
        return test::tinyRunConfig("a lighthouse on a cliff at dusk", 3, 5.0, 16, 24, steps);
    }
    static test::TinyPipeline layouts(const Files& f) { return {f.folder, f.dit, f.comfySet()}; }
};

class Sd3PipelineTest : public test::TinyPipelineTest<TinySd3> {};

// ---- the suites every tiny pipeline runs (pipeline_fixture.h) -----------------------------------

// Guided (5.0 > 1): the prompt embedding is CLIP-L + CLIP-G's tokens (the demo tokenizer pads to
// 32) then T5's 256, of the joint width 32; the VAE halves and the transformer patches 2 x 2.
const test::TinyPipelineCase kTinySd3 =
    test::TinyPipelineCase::of<TinySd3>("SD3")
        .folderHolds({"text_encoder", "text_encoder_2", "text_encoder_3", "transformer", "vae"}, 4)
        .defaultsTo(28, 7.0, true)
        .fileDetected(1, "SD3")
        .textEmbeddingOf((32 + 256) * 32)
        .latentsAre(16, 12, 8);

HS_CASES(SD3, TinyPipelineLayouts, kTinySd3);
HS_CASES(SD3, TinyPipelineStreaming, kTinySd3);

// ---- SD3's own ----------------------------------------------------------------------------------

// The default FlowMatch schedule shifted by 3 (no dynamic shift): set_timesteps spaces s from 1
// to the training schedule's smallest shifted sigma, 3 / 1000 / (1 + 2 / 1000), then shifts
// again: sigma_i = 3 s / (1 + 2 s); the transformer is called at t = 1000 sigma.
TEST_F(Sd3PipelineTest, TheScheduleIsShiftedByThree) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuSd3Pipeline);
    const double sMin = 0.003 / (1 + 0.002);
    test::expectScheduleShiftedByThree(p->run(config(4)), 4, sMin);
}

// Classifier-free guidance: guidance 1 runs one pass and ignores the negative prompt; above 1
// the negative prompt changes the image.
TEST_F(Sd3PipelineTest, GuidanceAboveOneUsesTheNegativePrompt) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuSd3Pipeline);
    RunConfig c = config(2);
    c.guidance = 1.0;
    const RunRecord plain = p->run(c);
    c.negativePrompt = "blurry";
    EXPECT_EQ(maxDifference(p->run(c).steps[1].latentValues, plain.steps[1].latentValues), 0.0f);
    c.guidance = 5.0;
    const RunRecord guided = p->run(c);
    c.negativePrompt = "";
    EXPECT_GT(maxDifference(p->run(c).steps[1].latentValues, guided.steps[1].latentValues), 1e-5f);
    // The prompt reaches the transformer.
    RunConfig other = c;
    other.prompt = "a red boat";
    EXPECT_GT(maxDifference(p->run(other).steps[0].latentValues, p->run(c).steps[0].latentValues),
              1e-5f);
}

// Without text_encoder_3 the T5 part is zeros of the CLIP tokenizer's length, as the pipeline
// makes them.
TEST_F(Sd3PipelineTest, RunsWithoutTheT5) {
    const std::string dir = test::tempDir("sd3-no-t5");
    fs::copy(s_files.folder, dir, fs::copy_options::recursive);
    nlohmann::json index = nlohmann::json::parse(std::ifstream(dir + "/model_index.json"));
    index.erase("text_encoder_3");
    index.erase("tokenizer_3");
    test::writeJsonFile(dir + "/model_index.json", index);
    auto p = Pipeline::load(dir, PrecisionPlan(), kCpuSd3Pipeline);
    const RunRecord r = p->run(config(1));
    EXPECT_EQ(r.textEmbedding.count, (32 + 32) * 32);
    EXPECT_EQ(r.steps[0].latent.finite, r.steps[0].latent.count);
    fs::remove_all(dir);
}

// Parts that do not fit are refused at load, naming the widths.
TEST_F(Sd3PipelineTest, PartsThatDoNotFitAreRefusedNamingTheWidths) {
    const std::string dir = test::tempDir("sd3-misfit");
    fs::copy(s_files.folder, dir, fs::copy_options::recursive);
    nlohmann::json tc = test::sd3TransformerConfigFixture();
    tc["pooled_projection_dim"] = 40;
    test::writeJsonFile(dir + "/transformer/config.json", tc);
    fs::remove(dir + "/transformer/diffusion_pytorch_model.safetensors");
    // Weights of the right shapes for that config (the load checks the weights first).
    test::writeWeightsFile(dir + "/transformer/diffusion_pytorch_model.safetensors",
                           test::randomWeightsOf(tc, "SD3Transformer2DModel", 1));
    const std::string e =
        errorOf<PipelineError>([&] { Pipeline::load(dir, PrecisionPlan(), kCpuSd3Pipeline); });
    EXPECT_NE(e.find("pooled_projection_dim"), std::string::npos) << e;
    EXPECT_NE(e.find("give 48"), std::string::npos) << e;
    fs::remove_all(dir);
}

// An image with more patches a side than the positional table holds is refused before the run.
TEST_F(Sd3PipelineTest, AnImageLargerThanThePositionalTableIsRefused) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuSd3Pipeline);
    RunConfig c = config(1);
    c.width = 68;  // 16 patches of 2 latent pixels of 2 image pixels: 64 at most
    const std::string e = errorOf<PipelineError>([&] { p->run(c); });
    EXPECT_NE(e.find("pos_embed_max_size 16"), std::string::npos) << e;
}

// One Stability/ComfyUI checkpoint holding everything (sd3.5_medium_incl_clips_t5xxlfp16 style:
// the DiT, first_stage_model.*, text_encoders.clip_l/clip_g/t5xxl.transformer.*) gives the
// folder's image: the VAE is read with SD3's scaling, the T5 goes to text_encoder_3.
TEST_F(Sd3PipelineTest, OneCheckpointHoldingEverythingGivesTheFoldersImage) {
    WeightMap all;
    auto add = [&](const std::string& file, const std::string& prefix) {
        for (auto& [k, t] : test::readTensorsFile(file)) all[prefix + k] = t;
    };
    add(s_files.dit, "");  // already under model.diffusion_model.
    add(s_files.ae, "first_stage_model.");
    add(s_files.clipL, "text_encoders.clip_l.transformer.");
    add(s_files.clipG, "text_encoders.clip_g.transformer.");
    add(s_files.t5, "text_encoders.t5xxl.transformer.");
    const std::string file =
        fs::path(s_files.dit).parent_path().string() + "/sd3.5-all.safetensors";
    test::writeWeightsFile(file, all);
    const RunRecord ref =
        Pipeline::load(s_files.folder, PrecisionPlan(), kCpuSd3Pipeline)->run(config(2));
    auto p = Pipeline::load(file, PrecisionPlan(), kCpuSd3Pipeline);
    EXPECT_EQ(p->detected().size(), 5u);
    test::expectSameRun(ref, p->run(config(2)), "the all-in-one checkpoint");
    fs::remove(file);
}

// The ComfyUI set through the command line: --text-encoder-3 gives the T5 file its slot.
TEST_F(Sd3PipelineTest, TheCommandLineRunsComfyUisSet) {
    const std::string out = test::tempDir("sd3-cli") + "/image.png";
    int status = -1;
    const std::string printed = test::runCli(
        "generate --model " + s_files.dit + " --vae " + s_files.ae + " --text-encoder " +
            s_files.clipL + " --text-encoder-2 " + s_files.clipG + " --text-encoder-3 " +
            s_files.t5 + " --steps 2 --width 16 --height 16 --prompt 'a lighthouse' --out " + out,
        status);
    EXPECT_EQ(status, 0) << printed;
    EXPECT_TRUE(fs::exists(out)) << printed;
}

}  // namespace
}  // namespace hs
