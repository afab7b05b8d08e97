// Qwen-Image as users have it: a tiny Qwen-Image-shaped pipeline (Qwen2.5-VL language model over
// the real Qwen2 vocabulary + QwenImageTransformer2DModel + Qwen-Image VAE) as a diffusers folder
// and as ComfyUI's file set, run end to end as diffusers' QwenImagePipeline runs it: the chat
// template's 34 tokens dropped, the dynamic-shift schedule, true CFG with the norm rescale.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "denoising/qwenimage_text.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "qwenimage_fixture.h"
#include "runtime/demo_location.h"
#include "single_file_helpers.h"
#include "test_util.h"
#include "text/qwen_tokenizer.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

struct TinyQwenImage {
    using Files = test::QwenImageFiles;
    static constexpr const char* kTag = "qwenimage";
    static Files write(const std::string& root) { return test::writeTinyQwenImage(root); }
    static RunConfig config(int steps) {
        return test::tinyRunConfig("A cat holding a sign that says hello world", 42, 4.0, 32, 16,
                                   steps);
    }
    static test::TinyPipeline layouts(const Files& f) {
        return {f.folder, f.dit, test::comfySetOf(f.vae, f.textEncoder)};
    }
};

class QwenImagePipelineTest : public test::TinyPipelineTest<TinyQwenImage> {
protected:
    static ModelFiles comfySet(const test::QwenImageFiles& f) {
        return TinyQwenImage::layouts(f).comfySet;
    }
};

// ---- the suites every tiny pipeline runs (pipeline_fixture.h) -----------------------------------

// Run with true CFG (a negative prompt); the tiny VAE's factor 2 x the 2 x 2 packing.
const test::TinyPipelineCase kTinyQwenImage =
    test::TinyPipelineCase::of<TinyQwenImage>("QwenImage")
        .runWith([] {
            RunConfig c = TinyQwenImage::config(2);
            c.negativePrompt = " ";
            return c;
        })
        .folderHolds({"text_encoder", "transformer", "vae"}, 4)
        .defaultsTo(50, 4.0, true)
        .fileDetected(3, "Qwen-Image")
        .latentsAre(16, 8, 16);

HS_CASES(QwenImage, TinyPipelineLayouts, kTinyQwenImage);
HS_CASES(QwenImage, TinyPipelineStreaming, kTinyQwenImage);
HS_CASES(QwenImage, TinyPipelineVae, kTinyQwenImage);

// ---- Qwen-Image's own ---------------------------------------------------------------------------

// The encoder sees the whole template; the transformer gets the tokens after the first 34, which
// are the system line and the opening of the user's turn.
TEST_F(QwenImagePipelineTest, TheTemplatesFirst34TokensAreDropped) {
    const QwenTokenizer tok = QwenTokenizer::fromFolder(findBundledTokenizer("qwen2"));
    RunConfig c = config(2);
    const std::vector<int> ids = tok.encode(qwenImageTemplated(c.prompt));
    ASSERT_GT(ids.size(), 34u);
    EXPECT_EQ(tok.decode(std::vector<int>(ids.begin(), ids.begin() + 34)),
              "<|im_start|>system\nDescribe the image by detailing the color, shape, size, "
              "texture, quantity, text, spatial relationships of the objects and "
              "background:<|im_end|>\n<|im_start|>user\n");
    EXPECT_EQ(tok.decode(std::vector<int>(ids.begin() + 34, ids.end())),
              c.prompt + "<|im_end|>\n<|im_start|>assistant\n");

    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
    c.probeLevel = ProbeLevel::Layer;
    const RunRecord r = p->run(c);
    const int64_t S = int64_t(ids.size()), D = 16;
    EXPECT_EQ(probeCount(r, "text_encoder.model.norm", -1), S * D);
    EXPECT_EQ(r.textEmbedding.count, (S - 34) * D);
    EXPECT_EQ(probeCount(r, "transformer.txt_norm", 0), (S - 34) * D);
    EXPECT_EQ(probeCount(r, "transformer.txt_in", 0), (S - 34) * 128);
    EXPECT_FALSE(hasNote(r, "max_sequence_length"));
    // The prompt reaches the transformer.
    RunConfig other = c;
    other.prompt = "the sea at dawn";
    EXPECT_GT(maxDifference(p->run(other).steps[0].latentValues, r.steps[0].latentValues), 1e-5f);
}

// diffusers' schedule: sigmas linspace(1, 1/N, N), the exponential time shift by
// mu = calculate_shift(32 tokens, 256, 8192, 0.5, 0.9), then stretched to end at 0.02; the
// transformer called at t / 1000.
TEST_F(QwenImagePipelineTest, TheScheduleShiftsDynamicallyAndEndsAtTheTerminal) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
    const RunRecord r = p->run(config(4));
    ASSERT_EQ(r.steps.size(), 4u);
    const double m = (0.9 - 0.5) / (8192 - 256), mu = 32 * m + 0.5 - m * 256;
    std::vector<double> s(4);
    for (int i = 0; i < 4; ++i) {
        const double t = 1.0 - i * (1.0 - 0.25) / 3.0;
        s[size_t(i)] = std::exp(mu) / (std::exp(mu) + (1 / t - 1));
    }
    const double scale = (1 - s[3]) / (1 - 0.02);
    for (int i = 0; i < 4; ++i) {
        const double want = 1 - (1 - s[size_t(i)]) / scale;
        EXPECT_NEAR(r.steps[size_t(i)].sigma, want, 1e-6) << i;
        EXPECT_NEAR(r.steps[size_t(i)].timestep, 1000 * want, 1e-3) << i;
    }
    EXPECT_NEAR(r.steps[0].sigma, 1.0, 1e-7);
    EXPECT_NEAR(r.steps[3].sigma, 0.02, 1e-7);
    // Printed for the record: the numbers the hand formula gives here.
    std::printf("  mu %.6f, sigmas %.6f %.6f %.6f %.6f\n", mu, r.steps[0].sigma, r.steps[1].sigma,
                r.steps[2].sigma, r.steps[3].sigma);
}

// Per 2 x 2 token of the packed layout: the norm of step 0's velocity (x1 - x0) / (s1 - s0)
// over its 4C values, from the [C, h, w] latents.
std::vector<double> tokenNorms(const StepRecord& s, const std::vector<float>& x0, double ds) {
    const int C = s.latentChannels, h = s.latentHeight, w = s.latentWidth;
    std::vector<double> n(size_t(h / 2 * (w / 2)), 0.0);
    for (int c = 0; c < C; ++c)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t i = size_t((c * h + y) * w + x);
                const double v = (double(s.latentValues[i]) - double(x0[i])) / ds;
                n[size_t(y / 2 * (w / 2) + x / 2)] += v * v;
            }
    for (double& v : n) v = std::sqrt(v);
    return n;
}

// do_true_cfg = true_cfg_scale > 1 and a negative prompt; the guided prediction rescaled to the
// conditional one's norm, token by token.
TEST_F(QwenImagePipelineTest, TrueCfgNeedsANegativePromptAndKeepsTheConditionalNorm) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
    RunConfig c = config(2);
    const RunRecord plain = p->run(c);  // guidance 4, no negative prompt: no guidance
    EXPECT_TRUE(hasNote(plain, "no classifier-free guidance")) << plain.notes.size();
    c.guidance = 1.0;
    const RunRecord unguided = p->run(c);
    EXPECT_EQ(maxDifference(plain.steps[0].latentValues, unguided.steps[0].latentValues), 0.f);
    c.negativePrompt = "blurry, low quality";
    const RunRecord ignored = p->run(c);  // guidance 1: the negative prompt is not used
    EXPECT_EQ(maxDifference(ignored.steps[0].latentValues, unguided.steps[0].latentValues), 0.f);
    EXPECT_TRUE(hasNote(ignored, "negative prompt is not used"));
    c.guidance = 4.0;
    const RunRecord guided = p->run(c);
    EXPECT_TRUE(guided.notes.empty());
    EXPECT_GT(maxDifference(guided.steps[0].latentValues, unguided.steps[0].latentValues), 1e-4f);
    // Step 0's conditional prediction is the same in both runs (same noise, same prompt): the
    // rescale gives the guided one its norm per token.
    auto gen = at::detail::createCPUGenerator(c.seed);
    const auto noise = torch::randn({16, 8, 16}, gen, torch::kFloat32).contiguous();
    const std::vector<float> x0(noise.data_ptr<float>(), noise.data_ptr<float>() + noise.numel());
    const double ds = unguided.steps[1].sigma - unguided.steps[0].sigma;
    const auto a = tokenNorms(guided.steps[0], x0, ds);
    const auto b = tokenNorms(unguided.steps[0], x0, ds);
    ASSERT_EQ(a.size(), 32u);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-4 * b[i]) << "token " << i;
    // The same prompt as the negative one: guidance changes nothing.
    c.negativePrompt = c.prompt;
    EXPECT_EQ(maxDifference(p->run(c).steps[0].latentValues, unguided.steps[0].latentValues), 0.f);
}

TEST_F(QwenImagePipelineTest, LongPromptsAreCutWithANote) {
    auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
    RunConfig c = config(2);
    c.prompt.clear();
    for (int i = 0; i < 700; ++i) c.prompt += " cat";  // 700 tokens
    const RunRecord r = p->run(c);
    EXPECT_EQ(r.verdict, "ok") << r.error;
    EXPECT_EQ(r.textEmbedding.count, 512 * 16);
    EXPECT_TRUE(hasNote(r, "more than max_sequence_length 512"))
        << (r.notes.empty() ? "" : r.notes[0]);
    c.prompt.clear();
    const RunRecord empty = p->run(c);
    EXPECT_EQ(empty.verdict, "ok") << empty.error;
    EXPECT_GT(empty.textEmbedding.count, 0);
}

TEST_F(QwenImagePipelineTest, PartsThatDoNotFitAreRefusedByName) {
    const std::string root = s_root + "/bad";
    fs::create_directories(root);
    {  // a text encoder narrower than joint_attention_dim
        ModelFiles m;
        m.textEncoder = test::writeTinyQwen25Vl(root + "/narrow.safetensors", 8);
        const std::string e = errorOf<PipelineError>(
            [&] { Pipeline::load(s_files.folder, m, PrecisionPlan(), kCpuPipeline); });
        EXPECT_NE(e.find("joint_attention_dim"), std::string::npos) << e;
        EXPECT_NE(e.find("16"), std::string::npos) << e;
        EXPECT_NE(e.find("gives 8"), std::string::npos) << e;
    }
    {  // fewer embeddings than the tokenizer's ids
        ModelFiles m;
        m.textEncoder = test::writeTinyQwen25Vl(root + "/small_vocab.safetensors", 16, 1000);
        const std::string e = errorOf<PipelineError>(
            [&] { Pipeline::load(s_files.folder, m, PrecisionPlan(), kCpuPipeline); });
        EXPECT_NE(e.find("not a pair"), std::string::npos) << e;
        EXPECT_NE(e.find("1000"), std::string::npos) << e;
    }
    {  // one step: the terminal stretch has nothing to stretch
        auto p = Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline);
        RunConfig c = config(2);
        c.steps = 1;
        const std::string e = errorOf<PipelineError>([&] { p->run(c); });
        EXPECT_NE(e.find("shift_terminal"), std::string::npos) << e;
    }
    // (A VAE of another family: TinyPipelineVae above.)
}

// As a user types it: ComfyUI's three files, the bundled tokenizer, the model's defaults but
// for the steps and the size; fp16 for the transformer is recorded as the plan.
TEST_F(QwenImagePipelineTest, TheCommandLineRunsTheComfyUiFiles) {
    const std::string out = s_root + "/cli";
    fs::create_directories(out);
    int status = -1;
    const std::string text = test::runCli(
        "generate --model " + s_files.dit + " --text-encoder " + s_files.textEncoder + " --vae " +
            s_files.vae +
            " --prompt 'A cat holding a sign that says hello world' --negative ' '"
            " --seed 42 --steps 2 --width 32 --height 16 --plan transformer=fp16 --out " +
            out + "/qwen.png",
        status);
    EXPECT_EQ(status, 0) << text;
    EXPECT_NE(text.find("image: ok"), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(out + "/qwen.png"));
}

}  // namespace
}  // namespace hs
