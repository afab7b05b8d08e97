// Qwen-Image's fp16 failure on the tiny Qwen-Image pipeline: a model whose residual streams are
// scaled past fp16's range (as the real bf16-trained one's massive activations are) run with the
// transformer in fp16, located, compared with the bf16 plan and the unscaled fp32 image; the
// command line that reproduces it from ComfyUI's files; the real model's memory needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "base/pipeline_error.h"
#include "io/safetensors_header.h"
#include "models/common/layers.h"
#include "models/registry.h"
#include "pipeline/memory_check.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "qwenimage_fixture.h"
#include "remedy_helpers.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// The MLP outputs' gain of the reference and the scaled model (see writeTinyQwenImage).
constexpr double kMlpGainQwenimageOverflow = 16;

// The unscaled model (with the MLP gain) and the scaled one. c takes the blocks' stream peaks
// past 2^17 while img_in and txt_in stay below 65504, as in the Anima test.
struct TinyGainedQwenImage {
    using Files = test::QwenImageFiles;
    static constexpr const char* kTag = "qwenimage_overflow";
    static Files write(const std::string& root, double c = 1.0) {
        return test::writeTinyQwenImage(root, c, kMlpGainQwenimageOverflow);
    }
    static bool inBlocks(const std::string& name) {
        return name.rfind("transformer.transformer_blocks.", 0) == 0;
    }
    static bool inEmbeddings(const std::string& name) {
        return name == "transformer.img_in" || name == "transformer.txt_in";
    }
    static RunConfig config(int steps) {
        RunConfig c = test::tinyRunConfig("A cat holding a sign that says hello world", 42, 4.0, 32,
                                          16, steps);
        c.negativePrompt = " ";
        return c;
    }
};

class QwenImageOverflow : public test::ScaledOverflowTest<TinyGainedQwenImage> {};

// The scaled model computes the same function: in fp32 it gives the unscaled model's image.
TEST_F(QwenImageOverflow, TheScaledModelIsTheSameFunctionWithStreamsPastFp16) {
    EXPECT_LT(s_embed * s_c, 65504.0) << "img_in and txt_in must stay inside fp16's range";
    EXPECT_GT(s_blocks * s_c, 131072.0);
    EXPECT_LE(s_blocks * s_c, 262144.0);
    const RunRecord r = runScaledInFp32(ProbeLevel::Module);
    double blocks = 0;
    for (const auto& [name, peak] : test::ditPeaks(r))
        if (name.rfind("transformer.transformer_blocks.", 0) == 0) blocks = std::max(blocks, peak);
    EXPECT_GT(blocks, 65520.0);
}

// The transformer in fp16: block 0's MLP output layer (img_mlp.net.2, the writer of the massive
// activations) is the first point past 65504 and rounds to Inf; the block's own fp16 clip (its
// Module point records the stream before it) turns block 0's Inf into +-65504, but in block 1
// the attention's update carries the clipped image stream past 65504 again, img_norm2 makes NaN
// of the Inf, and the latents are NaN from the first step: the clip does not save this run. The
// bf16 plan gives the unscaled model's fp32 image; the fp16 one is all NaN (black when saved).
TEST_F(QwenImageOverflow, Fp16IsNotRescuedByTheClipAndBf16IsClose) {
    std::unique_ptr<Pipeline> p;
    RunConfig cfg;
    RunRecord bad;
    const std::string block0 = "transformer.transformer_blocks.0";
    ASSERT_NO_FATAL_FAILURE(runScaledInFp16(p, cfg, bad, block0 + ".img_mlp"));
    // In call order: block 0's output (before its clip), block 1's residual sum after the
    // attention (the clipped stream plus a finite update), and the first NaN.
    const auto order = test::nonFiniteOrder(bad, [&](const std::string& name) {
        return name == block0 || name.find(".attn_residual") != std::string::npos;
    });
    EXPECT_EQ(order, (std::vector<std::string>{"Inf " + block0,
                                               "Inf transformer.transformer_blocks.1.attn_residual",
                                               "NaN transformer.transformer_blocks.1.img_norm2"}));
    test::expectFp16BlackAndBf16Clean(*p, cfg, bad, s_reference, block0, block0 + ".img_mlp");
}

// As a user types it: ComfyUI's three files, the transformer in fp16, advice for a T4; then
// the bf16 plan, clean.
TEST_F(QwenImageOverflow, TheCommandLineReproducesItFromTheComfyUiFiles) {
    expectCommandLineOverflow("--model " + s_scaled.dit + " --text-encoder " +
                                  s_scaled.textEncoder + " --vae " + s_scaled.vae +
                                  " --prompt 'A cat holding a sign that says hello world'"
                                  " --negative ' ' --seed 42 --steps 2 --width 32 --height 16",
                              "transformer.transformer_blocks.0",
                              "transformer.transformer_blocks.0.img_mlp");
}

// Each remedy people use, tried on the blocks the bisection keeps and on the whole transformer,
// with its image change against the bf16 run (the "which of those remedies works").
TEST_F(QwenImageOverflow, EachRemedyIsRunAndItsImageChangeToBf16IsReported) {
    RemedyTable t;
    std::map<std::string, RemedyRow> byAction;
    ASSERT_NO_FATAL_FAILURE(rankRemediesOfScaledFp16(t, byAction));
    // The bisection keeps img_in with the blocks: the latents it reads grow past what fp16's
    // img_in output holds once a step has been taken with the fp16 blocks.
    EXPECT_NE(std::find(t.failingBlocks.begin(), t.failingBlocks.end(),
                        "transformer.transformer_blocks.0"),
              t.failingBlocks.end());
    // Moving the blocks to bf16 fixes it, and so does scaling them by the headroom the bf16 run
    // measured: the MLP output that overflowed fits in fp16 at 2^-K of its size.
    EXPECT_TRUE(byAction.at("format/blocksbf16").passed);
    EXPECT_TRUE(byAction.at("scale/blocks").passed);
    EXPECT_TRUE(byAction.at("scale/component").passed);
    // Keeping the stream in fp32 does not: the MLP output itself is past 65504 before it is
    // added to the stream. Clipping the blocks keeps the run finite but far from the bf16
    // image; clipping only the transformer's streams leaves img_in's output to overflow.
    EXPECT_FALSE(byAction.at("fp32-residual/component").passed);
    EXPECT_FALSE(byAction.at("clamp/blocks").passed);
    EXPECT_EQ(byAction.at("clamp/blocks").outcome.nonFinite, 0);
    EXPECT_FALSE(byAction.at("clamp/component").passed);
    EXPECT_TRUE(t.rows.front().passed);
}

// A diffusers folder whose transformer is sharded, one shard deleted: refused naming the file.
TEST_F(QwenImageOverflow, AMissingShardIsNamed) {
    const std::string folder = test::writeShardedQwenImage(s_files, s_root + "/sharded", 3);
    const std::string dir = folder + "/transformer/";
    ASSERT_TRUE(fs::exists(dir + "diffusion_pytorch_model.safetensors.index.json"));
    ASSERT_FALSE(fs::exists(dir + "diffusion_pytorch_model.safetensors"));
    // Complete, it gives the single file's latents.
    const RunRecord whole = Pipeline::load(folder, PrecisionPlan(), kCpuPipeline)->run(config());
    const RunRecord single =
        Pipeline::load(s_files.folder, PrecisionPlan(), kCpuPipeline)->run(config());
    ASSERT_EQ(whole.steps.size(), single.steps.size());
    EXPECT_EQ(whole.steps.back().latentValues, single.steps.back().latentValues);

    fs::remove(dir + "diffusion_pytorch_model-00002-of-00003.safetensors");
    std::string e;
    try {
        Pipeline::load(folder, PrecisionPlan(), kCpuPipeline);
        ADD_FAILURE() << "loaded without a shard";
    } catch (const FileError& x) {
        e = x.what();
    } catch (const PipelineError& x) {
        e = x.what();
    }
    EXPECT_HAS(e, "diffusion_pytorch_model-00002-of-00003.safetensors");
    std::printf("  %s\n", e.c_str());
}

// The real Qwen-Image's components, built on the meta device from their released configs
// (diffusers' QwenImageTransformer2DModel defaults; Qwen2.5-VL-7B-Instruct's language model;
// AutoencoderKLQwenImage's defaults) and held as bf16 tensors, as the files store them: shapes
// only, no memory.
struct RealQwenImage {
    WeightMap transformer, textEncoder, vae;
};

WeightMap metaWeights(const nlohmann::json& config, const std::string& className) {
    const auto family = FamilyRegistry::global().require(className, "test");
    nn::MetaConstruction meta;
    auto c = family->build(ComponentSource{"real", config, {}}, "real");
    WeightMap w;
    for (auto& [key, t] : stateOf(c->module()))
        w.emplace(key, torch::zeros({1}, torch::kBFloat16).expand(t.sizes()));
    return w;
}

const RealQwenImage& realQwenImage() {
    static const RealQwenImage r = [] {
        RealQwenImage q;
        q.transformer =
            metaWeights(test::realQwenImageTransformerConfig(), "QwenImageTransformer2DModel");
        q.textEncoder =
            metaWeights(test::realQwen25VlTextConfig(), "Qwen2_5_VLForConditionalGeneration");
        q.vae = metaWeights({{"_class_name", "AutoencoderKLQwenImage"},
                             {"base_dim", 96},
                             {"z_dim", 16},
                             {"dim_mult", {1, 2, 4, 4}},
                             {"num_res_blocks", 2},
                             {"attn_scales", nlohmann::json::array()},
                             {"temperal_downsample", {false, true, true}},
                             {"dropout", 0.0}},
                            "AutoencoderKLQwenImage");
        return q;
    }();
    return r;
}

int64_t countOf(const WeightMap& w) {
    int64_t n = 0;
    for (const auto& kv : w) n += kv.second.numel();
    return n;
}

std::string modeNames(const LoadModeChoice& c) {
    std::string s;
    for (LoadMode m : c.modes) s += m == LoadMode::Streamed ? "S" : "F";
    return s;
}

// What the real model needs, and whether it streams, for GPU budgets of 16 and 24 GB (bf16 and
// fp16 native: 2 bytes a weight) and for this machine's free memory on the CPU.
TEST(QwenImageRealShapes, TheRealModelStreamsInto16And24Gb) {
    const RealQwenImage& q = realQwenImage();
    const int64_t nt = countOf(q.transformer), ne = countOf(q.textEncoder), nv = countOf(q.vae);
    std::printf("  parameters: transformer %.3f B, text encoder %.3f B, VAE %.1f M\n", nt / 1e9,
                ne / 1e9, nv / 1e6);
    EXPECT_NEAR(double(nt), 20.43e9, 0.05e9);
    // The language model without lm_head (the pipeline reads hidden states); the file's visual
    // tower (0.67 B) and lm_head (0.55 B) are not loaded.
    EXPECT_NEAR(double(ne), 7.07e9, 0.01e9);
    EXPECT_GT(nv, 100e6);
    EXPECT_LT(nv, 200e6);
    auto part = [](const std::string& name, const WeightMap& w, const std::string& className) {
        return ComponentWeights{name, &w,
                                FamilyRegistry::global().require(className, "test")->blockStems};
    };
    const std::vector<ComponentWeights> all = {
        part("text_encoder", q.textEncoder, "Qwen2_5_VLForConditionalGeneration"),
        part("transformer", q.transformer, "QwenImageTransformer2DModel"),
        part("vae", q.vae, "AutoencoderKLQwenImage")};
    const torch::Device gpu(torch::kCUDA, 0);
    struct Case {
        const char* plan;
        const char* mb;
        const char* modes;  // text_encoder, transformer, vae: F whole, S streamed
    };
    const char* bf16 = "text_encoder=bf16,transformer=bf16,vae=bf16";
    const char* fp16 = "text_encoder=bf16,transformer=fp16,vae=bf16";
    for (const Case& k :
         {Case{bf16, "16000", "SSF"}, Case{bf16, "24000", "FSF"}, Case{fp16, "16000", "SSF"},
          Case{fp16, "24000", "FSF"}, Case{"", "24000", "SSF"}}) {
        const PrecisionPolicy policy(PrecisionPlan::parse(k.plan), gpu);
        test::ScopedMemoryLimit limit(k.mb);
        const LoadModeChoice c = chooseLoadModes("Qwen/Qwen-Image", all, policy);
        std::printf("  GPU %s MB, %s (%.2f GB): %s\n", k.mb, *k.plan ? k.plan : "fp32",
                    weightBytes(all, policy) / 1e9, c.description.c_str());
        EXPECT_EQ(modeNames(c), k.modes) << k.plan << " " << k.mb;
    }
    {  // 2 bytes a weight on a GPU, in both half formats
        const PrecisionPolicy policy(PrecisionPlan::parse(bf16), gpu);
        EXPECT_NEAR(weightBytes(all, policy) / 1e9, 55.26, 0.01);
        test::ScopedMemoryLimit limit("16000");
        EXPECT_NE(chooseLoadModes("Qwen/Qwen-Image", all, policy)
                      .description.find("680 MB per block in bf16"),
                  std::string::npos);
    }
    // This machine's free memory, on the CPU (fp16 and, without bf16 instructions, bf16 are held
    // in fp32 there): streamed when the whole does not fit.
    const auto budget = memoryBudget(kCpuPipeline);
    ASSERT_TRUE(budget.has_value());
    for (const char* plan : {"", bf16}) {
        const PrecisionPolicy policy(PrecisionPlan::parse(plan), kCpuPipeline);
        const uint64_t need = weightBytes(all, policy);
        const LoadModeChoice c = chooseLoadModes("Qwen/Qwen-Image", all, policy);
        std::printf("  this machine, %s (%.2f GB): %s\n", *plan ? plan : "fp32", need / 1e9,
                    c.description.c_str());
        EXPECT_EQ(c.modes[1] == LoadMode::Streamed, need + need / 4 > budget->bytes);
    }
}

}  // namespace
}  // namespace hs
