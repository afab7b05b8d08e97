// What every tiny pipeline does as users have it (pipeline_fixture.h), each instantiated in the
// family's pipeline test file with its data: the diffusers folder and ComfyUI's file set give
// the same image; a memory budget below the weights streams the transformer block by block and
// gives the same latents; a VAE of another family is refused by its class.
#include <gtest/gtest.h>

#include "base/pipeline_error.h"
#include "pipeline_fixture.h"
#include "single_file_helpers.h"

namespace hs::test {
namespace {

// `r` ran two steps, its latents `shape` ({channels, height, width}).
void expectTwoStepsOfLatents(const RunRecord& r, const std::vector<int>& shape) {
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].latentChannels, shape[0]);
    EXPECT_EQ(r.steps[0].latentHeight, shape[1]);
    EXPECT_EQ(r.steps[0].latentWidth, shape[2]);
}

}  // namespace

TEST_P(TinyPipelineLayouts, TheFolderAndTheComfyUiSetGiveTheSameImage) {
    const TinyPipelineCase& c = GetParam();
    const TinyPipeline& t = pipeline();
    auto folder = Pipeline::load(t.folder, PrecisionPlan(), kCpuPipeline);
    std::vector<std::string> names;
    for (const auto& part : folder->components()) names.push_back(part.name);
    EXPECT_EQ(names, c.components);
    EXPECT_EQ(folder->sizeMultiple(), c.sizeMultiple);
    EXPECT_EQ(folder->defaults().steps, c.defaultSteps);
    EXPECT_EQ(folder->defaults().guidance, c.defaultGuidance);
    EXPECT_EQ(folder->defaults().negativePrompt, c.negativePrompt);
    const RunRecord ref = folder->run(c.config());
    EXPECT_EQ(ref.verdict, "ok") << ref.verdictExplanation << ref.error;
    EXPECT_TRUE(ref.image.allFinite());
    EXPECT_GT(ref.image.std, 0.0);
    if (c.textEmbeddingCount >= 0) EXPECT_EQ(ref.textEmbedding.count, c.textEmbeddingCount);
    if (!c.latentShape.empty()) expectTwoStepsOfLatents(ref, c.latentShape);

    auto set = Pipeline::load(t.dit, t.comfySet, PrecisionPlan(), kCpuPipeline);
    ASSERT_GE(set->detected().size(), c.detectedParts);
    EXPECT_NE(set->detected()[0].find(c.detectedAs), std::string::npos) << set->detected()[0];
    expectSameRun(ref, set->run(c.config()), "the ComfyUI set");
}

// The transformer streamed block by block (and the text encoders freed after the prompt): the
// same latents, bit for bit, in the first run and in the next, which reads the freed encoders
// again; far below the weights the pipeline is refused, saying that even streaming does not fit.
TEST_P(TinyPipelineStreaming, TheTransformerStreamsWhenTheModelDoesNotFit) {
    const TinyPipelineCase& c = GetParam();
    const TinyPipeline& t = pipeline();
    RunRecord ref;
    {
        auto whole = Pipeline::load(t.folder, PrecisionPlan(), kCpuPipeline);
        EXPECT_NE(whole->memoryPlan().find("whole"), std::string::npos) << whole->memoryPlan();
        ref = whole->run(c.config());
    }
    auto p = loadStreaming(t.folder);
    ASSERT_TRUE(p);
    bool streamed = false;
    for (const auto& part : p->components())
        streamed |= part.name == "transformer" && part.streamed;
    EXPECT_TRUE(streamed) << p->memoryPlan();
    expectSameRun(ref, p->run(c.config()), "streamed");
    expectSameRun(ref, p->run(c.config()), "streamed, second run");

    ScopedMemoryLimit tiny(std::to_string(safetensorsBytes(t.folder) / 50 / 1e6));
    const std::string m =
        errorOf<PipelineError>([&] { Pipeline::load(t.folder, PrecisionPlan(), kCpuPipeline); });
    EXPECT_NE(m.find("stream"), std::string::npos) << m;
}

// An SD-style AutoencoderKL given for the pipeline's Qwen-Image VAE.
TEST_P(TinyPipelineVae, AVaeOfAnotherFamilyIsRefused) {
    const TinyPipeline& t = pipeline();
    ModelFiles m = t.comfySet;
    m.vae = dataPath("golden/vae");
    const std::string e =
        errorOf<PipelineError>([&] { Pipeline::load(t.dit, m, PrecisionPlan(), kCpuPipeline); });
    EXPECT_NE(e.find("AutoencoderKLQwenImage"), std::string::npos) << e;
}

}  // namespace hs::test
