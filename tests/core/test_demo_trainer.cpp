// The demo trainer on a tiny budget: it exports a loadable pipeline, and an interrupted run that
// is resumed ends with exactly the weights of an uninterrupted one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "demo/trainer.h"
#include "demo_training.h"
#include "pipeline/pipeline.h"
#include "test_util.h"

using namespace hs;

namespace {

// The straight and the resumed run measure the same 16 scenes.
demo::TrainOptions tiny(const std::string& out) {
    return test::tinyTraining(out, 3, 3, 16);
}

std::string bytesOf(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

}  // namespace

TEST(DemoTrainer, ResumingAfterAnInterruptionGivesTheSameWeights) {
    namespace fs = std::filesystem;
    const std::string dir = test::tempDir("trainer");
    const auto straight = demo::trainDemo(tiny(dir + "/a"));
    ASSERT_TRUE(straight.finished);
    EXPECT_NO_THROW(Pipeline::load(dir + "/a", PrecisionPlan(), torch::Device(torch::kCPU)));

    // Interrupted after the first step of each phase (VAE, transformer, VAE decoder) and resumed
    // each time: every interruption saves the models, the optimizer and the EMA.
    std::atomic<bool> cancel{false};
    auto o = tiny(dir + "/b");
    o.cancel = &cancel;
    std::string stopAt = "vae step 1/";
    o.log = [&](const std::string& line) {
        if (!stopAt.empty() && line.find(stopAt) != std::string::npos) cancel = true;
    };
    const auto first = demo::trainDemo(o);
    EXPECT_FALSE(first.finished);
    EXPECT_EQ(first.vaeStepsDone, 1);
    EXPECT_TRUE(fs::exists(dir + "/b.train-state/state.safetensors"));
    EXPECT_FALSE(fs::exists(dir + "/b/model_index.json"));
    cancel = false;
    o.resume = true;
    stopAt = "transformer step 1/";
    const auto second = demo::trainDemo(o);
    EXPECT_FALSE(second.finished);
    EXPECT_EQ(second.ditStepsDone, 1);
    cancel = false;
    stopAt = "vae decoder step 1/";
    const auto decoder = demo::trainDemo(o);
    EXPECT_FALSE(decoder.finished);
    EXPECT_EQ(decoder.decoderStepsDone, 1);
    cancel = false;
    stopAt.clear();
    const auto third = demo::trainDemo(o);
    ASSERT_TRUE(third.finished);

    for (const char* f :
         {"transformer/diffusion_pytorch_model.safetensors", "text_encoder/model.safetensors",
          "vae/diffusion_pytorch_model.safetensors", "vae/config.json"})
        EXPECT_EQ(bytesOf(dir + "/a/" + f), bytesOf(dir + "/b/" + f)) << f;
    fs::remove_all(dir);
}

TEST(DemoTrainer, RefusesAResumeStateFromAnotherRecipe) {
    const std::string dir = test::tempDir("trainer-mismatch");
    std::atomic<bool> cancel{true};
    auto o = tiny(dir + "/m");
    o.cancel = &cancel;
    EXPECT_FALSE(demo::trainDemo(o).finished);  // leaves a state at VAE step 0
    cancel = false;
    o.resume = true;
    o.vaeBatch = 8;  // a different recipe: resuming would not reproduce either
    EXPECT_THROW(demo::trainDemo(o), std::runtime_error);
    std::filesystem::remove_all(dir);
}
