// FLUX.1 as users have it: a tiny FLUX.1-shaped pipeline (CLIP + T5 + a Flux transformer with
// a guidance embedding + a 16-channel VAE) in the three layouts users hold, run end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "flux1_fixture.h"
#include "io/safetensors.h"
#include "pipeline/memory_check.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "remedy_helpers.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

struct TinyFlux1 {
    struct Files {
        test::Flux1Files dev, schnell;
    };
    static constexpr const char* kTag = "flux1";
    static Files write(const std::string& root) {
        return {test::writeTinyFlux1(root + "/dev", true),
                test::writeTinyFlux1(root + "/schnell", false)};
    }
    static RunConfig config(int steps) {
        return test::tinyRunConfig("a red fox in the snow, photograph", 7, 3.5, 16, 24, steps);
    }
    // dev's folder, and its Black Forest Labs file with the ComfyUI set: the VAE and encoders.
    static test::TinyPipeline layouts(const Files& f) {
        return {f.dev.folder, f.dev.bfl, comfySet(f.dev)};
    }
    static ModelFiles comfySet(const test::Flux1Files& f) {
        return test::comfySetOf(f.ae, f.clipL, f.t5);
    }
};

// s_files.dev (a guidance embedding) and s_files.schnell (none).
class Flux1Pipeline : public test::TinyPipelineTest<TinyFlux1> {
protected:
    static ModelFiles comfySet(const test::Flux1Files& f) { return TinyFlux1::comfySet(f); }
};

// ---- the suites every tiny pipeline runs (pipeline_fixture.h) -----------------------------------

// The tiny VAE halves, 2x2 packing; T5's sequence (dev: 512 tokens of width 32) is the text
// embedding the run records. A budget below the weights streams the transformer (and T5).
const test::TinyPipelineCase kTinyFlux1 =
    test::TinyPipelineCase::of<TinyFlux1>("Flux1")
        .folderHolds({"text_encoder", "text_encoder_2", "transformer", "vae"}, 4)
        .defaultsTo(28, 3.5, false)
        .fileDetected(4, "Black Forest Labs layout")
        .textEmbeddingOf(512 * 32);

HS_CASES(Flux1, TinyPipelineLayouts, kTinyFlux1);
HS_CASES(Flux1, TinyPipelineStreaming, kTinyFlux1);

// ---- FLUX.1's own -------------------------------------------------------------------------------

// The Black Forest Labs file says what it holds; under ComfyUI's "model.diffusion_model." it
// gives the folder's image too.
TEST_F(Flux1Pipeline, TheBflFilesSayWhatTheyHoldAndGiveTheFoldersImage) {
    const RunRecord ref =
        Pipeline::load(s_files.dev.folder, PrecisionPlan(), kCpuPipeline)->run(config());
    auto bfl =
        Pipeline::load(s_files.dev.bfl, comfySet(s_files.dev), PrecisionPlan(), kCpuPipeline);
    ASSERT_EQ(bfl->detected().size(), 4u);
    EXPECT_NE(bfl->detected()[0].find("2 double + 2 single blocks"), std::string::npos)
        << bfl->detected()[0];
    EXPECT_EQ(bfl->components().size(), 4u);

    auto prefixed = Pipeline::load(s_files.dev.bflPrefixed, comfySet(s_files.dev), PrecisionPlan(),
                                   kCpuPipeline);
    EXPECT_NE(prefixed->detected()[0].find("model.diffusion_model."), std::string::npos);
    expectSameRun(ref, prefixed->run(config()), "model.diffusion_model. prefix");
}

TEST_F(Flux1Pipeline, DevAndSchnellRunAsDiffusersDoes) {
    auto dev =
        Pipeline::load(s_files.dev.bfl, comfySet(s_files.dev), PrecisionPlan(), kCpuPipeline);
    EXPECT_EQ(dev->defaults().steps, 28);
    EXPECT_EQ(dev->defaults().guidance, 3.5);
    EXPECT_FALSE(dev->defaults().negativePrompt);
    // dev: dynamic shift, mu from the 4 x 6 = 24 packed image tokens (diffusers calculate_shift).
    const RunRecord a = dev->run(config(2));
    const double mu = 0.5 + (1.15 - 0.5) / (4096 - 256) * (24 - 256);
    auto shifted = [&](double t) { return std::exp(mu) / (std::exp(mu) + (1 / t - 1)); };
    EXPECT_NEAR(a.steps[0].sigma, 1.0, 1e-6);
    EXPECT_NEAR(a.steps[1].sigma, shifted(0.5), 1e-6);
    // The guidance goes into the embedding: another scale, another image; no second batch.
    RunConfig g = config(2);
    g.guidance = 1.0;
    EXPECT_NE(dev->run(g).savedImage->rgb, a.savedImage->rgb);

    auto schnell = Pipeline::load(s_files.schnell.bfl, comfySet(s_files.schnell), PrecisionPlan(),
                                  kCpuPipeline);
    EXPECT_EQ(schnell->defaults().steps, 4);
    EXPECT_NE(schnell->detected()[0].find("no guidance embedding"), std::string::npos);
    const RunRecord s = schnell->run(config(4));
    // linspace(1, 1/4, 4), not shifted; T5 256 tokens.
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(s.steps[i].sigma, 1.0 - 0.25 * i, 1e-6) << i;
    EXPECT_EQ(s.textEmbedding.count, 256 * 32);
    RunConfig other = config(4);
    other.guidance = 9.0;  // schnell has nowhere to put it, as in diffusers
    EXPECT_EQ(schnell->run(other).savedImage->rgb, s.savedImage->rgb);
}

TEST_F(Flux1Pipeline, RefusesWhatFlux1CannotRun) {
    auto p = Pipeline::load(s_files.dev.folder, PrecisionPlan(), kCpuPipeline);
    RunConfig c = config(1);
    c.negativePrompt = "blurry";
    const std::string m = errorOf<PipelineError>([&] { p->run(c); });
    EXPECT_NE(m.find("negative prompt"), std::string::npos) << m;
    c = config(1);
    c.width = 18;
    EXPECT_NE(errorOf<PipelineError>([&] { p->run(c); }).find("multiples of 4"), std::string::npos);
}

// Bad inputs: each refused with what is wrong, before anything runs.
class Flux1BadInput : public Flux1Pipeline {
protected:
    std::string loadError(const std::string& model, const ModelFiles& with) {
        try {
            Pipeline::load(model, with, PrecisionPlan(), kCpuPipeline);
        } catch (const std::exception& e) {
            return e.what();
        }
        return "(loaded)";
    }
    std::string copyOf(const std::string& file, const std::string& name) {
        const std::string dir = test::tempDir("flux1-bad");
        m_dirs.push_back(dir);
        fs::copy_file(file, dir + "/" + name);
        return dir + "/" + name;
    }
    ~Flux1BadInput() override {
        std::error_code ec;
        for (const auto& d : m_dirs) fs::remove_all(d, ec);
    }
    std::vector<std::string> m_dirs;
};

TEST_F(Flux1BadInput, ABflFileWithAMissingBlockNamesIt) {
    WeightMap w = test::openWeights(s_files.dev.bfl);
    for (auto it = w.begin(); it != w.end();)
        it = it->first.rfind("double_blocks.0.", 0) == 0 ? w.erase(it) : std::next(it);
    const std::string dir = test::tempDir("flux1-gap");
    m_dirs.push_back(dir);
    const std::string file = test::writeWeights(dir, "gap.safetensors", w);
    const std::string m = loadError(file, comfySet(s_files.dev));
    EXPECT_NE(m.find("double_blocks.0"), std::string::npos) << m;
}

TEST_F(Flux1BadInput, ATruncatedShardNamesTheShard) {
    const std::string root = test::tempDir("flux1-trunc");
    m_dirs.push_back(root);
    fs::copy(s_files.dev.folder, root, fs::copy_options::recursive);
    const std::string shard =
        root + "/transformer/diffusion_pytorch_model-00002-of-00002.safetensors";
    fs::resize_file(shard, fs::file_size(shard) - 100);
    const std::string m = loadError(root, {});
    EXPECT_NE(m.find("diffusion_pytorch_model-00002-of-00002.safetensors"), std::string::npos) << m;
}

TEST_F(Flux1BadInput, AT5WhoseVocabularyDoesNotMatchItsTokenizerIsRefused) {
    // A T5 embedding of 100 rows against the tokenizer's 300 pieces + 100 extra ids.
    WeightMap w = test::openWeights(s_files.dev.t5);
    w["shared.weight"] = w.at("shared.weight").slice(0, 0, 100).clone();
    const std::string dir = test::tempDir("flux1-vocab");
    m_dirs.push_back(dir);
    ModelFiles set = comfySet(s_files.dev);
    set.textEncoder2 = test::writeWeights(dir, "t5xxl_small_vocab.safetensors", w);
    set.tokenizer2 = s_files.dev.tokenizer2;
    const std::string m = loadError(s_files.dev.bfl, set);
    EXPECT_NE(m.find("400 ids"), std::string::npos) << m;
    EXPECT_NE(m.find("100 (vocab_size)"), std::string::npos) << m;
}

TEST_F(Flux1BadInput, PartsThatDisagreeAreRefused) {
    // A CLIP of width 16 against the transformer's pooled projection of 24.
    WeightMap clip = test::openWeights(s_files.dev.clipL);
    for (auto& [k, t] : clip) {
        if (k.find("position_ids") != std::string::npos) continue;
        std::vector<int64_t> shape = t.sizes().vec();
        for (auto& d : shape)
            if (d == 24)
                d = 16;
            else if (d == 48)
                d = 32;
        t = torch::randn(shape);
    }
    const std::string dir = test::tempDir("flux1-width");
    m_dirs.push_back(dir);
    ModelFiles set = comfySet(s_files.dev);
    set.textEncoder = test::writeWeights(dir, "clip_narrow.safetensors", clip);
    set.tokenizer = s_files.dev.tokenizer;
    std::string m = loadError(s_files.dev.bfl, set);
    EXPECT_NE(m.find("pooled_projection_dim"), std::string::npos) << m;
    EXPECT_NE(m.find("gives 16"), std::string::npos) << m;

    // A file given for the wrong part says what it holds.
    set = comfySet(s_files.dev);
    set.textEncoder = s_files.dev.t5;
    m = loadError(s_files.dev.bfl, set);
    EXPECT_NE(m.find("--text-encoder"), std::string::npos) << m;
    EXPECT_NE(m.find("T5 encoder"), std::string::npos) << m;

    // No VAE: the option to give it is named.
    set = comfySet(s_files.dev);
    set.vae.clear();
    m = loadError(s_files.dev.bfl, set);
    EXPECT_NE(m.find("--vae"), std::string::npos) << m;

    // Encoders alone hold no denoiser.
    m = loadError(s_files.dev.t5, {});
    EXPECT_NE(m.find("no denoiser"), std::string::npos) << m;
}

TEST_F(Flux1BadInput, AMissingT5TokenizerNamesTheFileAndTheOption) {
    // The set without tokenizer_2/ beside it.
    ModelFiles set;
    set.vae = copyOf(s_files.dev.ae, "ae.safetensors");
    set.textEncoder = s_files.dev.clipL;
    set.textEncoder2 = copyOf(s_files.dev.t5, "t5xxl.safetensors");
    std::string m = loadError(copyOf(s_files.dev.bfl, "flux1-dev.safetensors"), set);
    EXPECT_NE(m.find("spiece.model"), std::string::npos) << m;
    EXPECT_NE(m.find("--tokenizer-2"), std::string::npos) << m;

    // A diffusers folder whose tokenizer_2 lacks spiece.model.
    const std::string root = test::tempDir("flux1-nospiece");
    m_dirs.push_back(root);
    fs::copy(s_files.dev.folder, root, fs::copy_options::recursive);
    fs::remove(root + "/tokenizer_2/spiece.model");
    m = loadError(root, {});
    EXPECT_NE(m.find("spiece.model"), std::string::npos) << m;
}

TEST_F(Flux1Pipeline, GenerateTakesTheFileSetAndWritesTheFoldersImage) {
    const std::string out = s_root + "/out";
    fs::create_directories(out);
    const std::string common =
        " --prompt 'a red fox' --seed 3 --steps 1 --width 16 --height 16 --probe-level module";
    int status = -1;
    const std::string a = test::runCli(
        "generate --model " + s_files.dev.folder + common + " --out " + out + "/a.png", status);
    ASSERT_NE(status, 2) << a;
    const std::string b =
        test::runCli("generate --model " + s_files.dev.bfl + " --vae " + s_files.dev.ae +
                         " --text-encoder " + s_files.dev.clipL + " --text-encoder-2 " +
                         s_files.dev.t5 + common + " --out " + out + "/b.png",
                     status);
    ASSERT_NE(status, 2) << b;
    EXPECT_NE(b.find("Black Forest Labs layout"), std::string::npos) << b;
    EXPECT_NE(b.find("text_encoder_2"), std::string::npos) << b;
    std::ifstream fa(out + "/a.png", std::ios::binary), fb(out + "/b.png", std::ios::binary);
    const std::string pa((std::istreambuf_iterator<char>(fa)), {}),
        pb((std::istreambuf_iterator<char>(fb)), {});
    EXPECT_FALSE(pa.empty());
    EXPECT_TRUE(pa == pb) << "the file set's PNG differs from the folder's";

    // A set without --model is a usage error.
    const std::string c =
        test::runCli("generate --vae " + s_files.dev.ae + " --out " + out + "/c.png", status);
    EXPECT_EQ(status, 2) << c;
    EXPECT_NE(c.find("--model"), std::string::npos) << c;
}

TEST_F(Flux1Pipeline, RunModuleTakesSingleFiles) {
    // The T5 file through run-module: the same outputs as its diffusers folder.
    const std::string dir = s_root + "/runmodule";
    fs::create_directories(dir);
    writeSafetensors(dir + "/in.safetensors",
                     {{"in.input_ids", torch::tensor({{5, 17, 42, 1, 0, 0}}, torch::kInt64)}});
    int status = -1;
    const std::string a = test::runCli("run-module --model " + s_files.dev.t5 + " --inputs " + dir +
                                           "/in.safetensors --output " + dir + "/a.safetensors",
                                       status);
    ASSERT_EQ(status, 0) << a;
    EXPECT_NE(a.find("T5 encoder"), std::string::npos) << a;
    EXPECT_NE(a.find("as 'text_encoder_2'"), std::string::npos) << a;
    const std::string b =
        test::runCli("run-module --model " + s_files.dev.folder + "/text_encoder_2 --inputs " +
                         dir + "/in.safetensors --output " + dir + "/b.safetensors",
                     status);
    ASSERT_EQ(status, 0) << b;
    EXPECT_TRUE(
        torch::equal(test::openWeights(dir + "/a.safetensors").at("out.last_hidden_state"),
                     test::openWeights(dir + "/b.safetensors").at("out.last_hidden_state")));
    // A part the file does not hold.
    const std::string c =
        test::runCli("run-module --model " + s_files.dev.t5 + " --part vae --inputs " + dir +
                         "/in.safetensors --output " + dir + "/c.safetensors",
                     status);
    EXPECT_EQ(status, 2) << c;
    EXPECT_NE(c.find("no 'vae' part"), std::string::npos) << c;
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// A tensor of `shape` that takes no memory (one element, expanded): enough for layout detection,
// config inference and the memory check, which read names and shapes only.
torch::Tensor shaped(std::vector<int64_t> shape) {
    return torch::zeros({1}, torch::kBFloat16).expand(shape);
}

// FLUX.1-dev in the Black Forest Labs layout at its real shapes (11.9 B parameters).
WeightMap flux1DevShapes() {
    const int64_t D = 3072, mlp = 4 * D;
    WeightMap w;
    auto linear = [&](const std::string& p, int64_t out, int64_t in) {
        w[p + ".weight"] = shaped({out, in});
        w[p + ".bias"] = shaped({out});
    };
    for (const char* e : {"time_in", "guidance_in"}) {
        linear(std::string(e) + ".in_layer", D, 256);
        linear(std::string(e) + ".out_layer", D, D);
    }
    linear("vector_in.in_layer", D, 768);
    linear("vector_in.out_layer", D, D);
    linear("img_in", D, 64);
    linear("txt_in", D, 4096);
    for (int i = 0; i < 19; ++i) {
        const std::string b = "double_blocks." + std::to_string(i) + ".";
        for (const char* s : {"img", "txt"}) {
            const std::string p = b + s;
            linear(p + "_attn.qkv", 3 * D, D);
            w[p + "_attn.norm.query_norm.scale"] = shaped({128});
            w[p + "_attn.norm.key_norm.scale"] = shaped({128});
            linear(p + "_attn.proj", D, D);
            linear(p + "_mlp.0", mlp, D);
            linear(p + "_mlp.2", D, mlp);
            linear(p + "_mod.lin", 6 * D, D);
        }
    }
    for (int i = 0; i < 38; ++i) {
        const std::string b = "single_blocks." + std::to_string(i) + ".";
        linear(b + "linear1", 3 * D + mlp, D);
        linear(b + "linear2", D, D + mlp);
        linear(b + "modulation.lin", 3 * D, D);
        w[b + "norm.query_norm.scale"] = shaped({128});
        w[b + "norm.key_norm.scale"] = shaped({128});
    }
    linear("final_layer.linear", 64, D);
    linear("final_layer.adaLN_modulation.1", 2 * D, D);
    return w;
}

TEST(Flux1RealShapes, Flux1DevIsNamedAndStreamsInto24Gb) {
    const SingleFileContents f = convertSingleFile(flux1DevShapes(), "flux1-dev.safetensors");
    ASSERT_EQ(f.components.size(), 1u);
    const ConvertedComponent& c = f.components[0];
    EXPECT_EQ(c.description.rfind("FLUX.1-dev transformer, Black Forest Labs layout, 19 double + "
                                  "38 single blocks, bf16",
                                  0),
              0u)
        << c.description;
    EXPECT_EQ(c.config["num_attention_heads"], 24);
    EXPECT_EQ(c.config["attention_head_dim"], 128);
    EXPECT_EQ(c.config["axes_dims_rope"], nlohmann::json({16, 56, 56}));
    EXPECT_EQ(c.config["guidance_embeds"], true);

    // 23.8 GB stored; emulated fp16 holds fp32, 47.6 GB: a 24 GB machine streams it, needing
    // its non-block weights plus one double block (1.36 GB).
    int64_t n = 0;
    for (const auto& kv : c.weights) n += kv.second.numel();
    EXPECT_NEAR(double(n), 11.9e9, 0.05e9);
    const auto family = FamilyRegistry::global().require(c.className, "test");
    test::ScopedMemoryLimit limit("24000");
    const LoadModeChoice choice =
        chooseLoadModes("flux1-dev.safetensors", {{"transformer", &c.weights, family->blockStems}},
                        PrecisionPolicy(PrecisionPlan::parse("transformer=fp16"), kCpuPipeline));
    ASSERT_EQ(choice.modes.size(), 1u);
    EXPECT_EQ(choice.modes[0], LoadMode::Streamed);
    EXPECT_NE(choice.description.find("1.36 GB per block"), std::string::npos)
        << choice.description;
}

// FLUX.1 with one MLP made to overflow fp16 (single block 0's proj_mlp times 2^16: its outputs
// pass 65504 while its weights stay inside fp16's range): every remedy tried and ranked against the
// bf16 run.
TEST_F(Flux1Pipeline, EveryRemedyIsRankedAgainstBf16) {
    const std::string root = s_root + "/overflow";
    const auto f = test::writeTinyFlux1(root, true);
    const std::string key = "single_transformer_blocks.0.proj_mlp.weight";
    bool scaled = false;
    for (const auto& e : fs::directory_iterator(f.folder + "/transformer")) {
        if (e.path().extension() != ".safetensors") continue;
        std::vector<std::pair<std::string, torch::Tensor>> list;
        {
            const auto file = SafetensorsFile::open(e.path().string());
            if (!file->find(key)) continue;
            for (const auto& t : file->tensors()) {
                torch::Tensor v = file->tensor(t.name).clone();
                if (t.name == key) v = v * 65536;
                list.emplace_back(t.name, v);
            }
        }
        writeSafetensors(e.path().string(), list);
        scaled = true;
    }
    ASSERT_TRUE(scaled);
    RunConfig cfg = config(2);
    cfg.modelDir = f.folder;
    cfg.plan = PrecisionPlan::parse("transformer=fp16");
    RemedyTable t;
    const auto row = test::rankedRemedies(cfg, Format::BF16, &t);
    ASSERT_EQ(t.rows.size(), 8u);
    EXPECT_EQ(t.failingBlocks, std::vector<std::string>{"transformer.single_transformer_blocks.0"});
    EXPECT_TRUE(row.at("format/blocksbf16").passed);
    EXPECT_TRUE(row.at("scale/blocks").passed);
    // The overflow is inside the block's MLP, not on its residual stream.
    EXPECT_FALSE(row.at("fp32-residual/blocks").passed);
}

}  // namespace
}  // namespace hs
