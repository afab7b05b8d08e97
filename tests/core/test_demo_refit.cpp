// Refitting a trained demo checkpoint (train-demo --base): the base's text encoder carries over
// to the grammar's vocabulary row by row, its transformer comes back at its natural scale, and a
// tiny refit exports a pipeline at the new VAE's size that keeps the base transformer's latents.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "demo/base_checkpoint.h"
#include "demo/caption_grammar.h"
#include "demo/demo_config.h"
#include "demo/demo_tokenizer.h"
#include "demo/residual_calibration.h"
#include "demo/trainer.h"
#include "demo_training.h"
#include "io/safetensors.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"
#include "test_util.h"

using namespace hs;

namespace {

const PrecisionPolicy& fp32() {
    static const PrecisionPolicy p(PrecisionPlan(), torch::Device(torch::kCPU));
    return p;
}

nlohmann::json textConfigOf(const ClipTokenizer& tok) {
    const int n = int(tok.vocabSize());
    return demo::textEncoderConfig(n, n - 2, n - 1, n - 1);
}

ClipTokenizer grammarTokenizerDemoRefit(const std::string& tag) {
    const std::string dir = test::tempDir(tag);
    demo::writeTokenizerFolder(dir, demo::learnBpe(demo::grammarWords()), demo::kTextLength);
    ClipTokenizer tok = ClipTokenizer::fromFolder(dir);
    std::filesystem::remove_all(dir);
    return tok;
}

torch::Tensor idsOf(const ClipTokenizer& tok, const std::string& text) {
    const auto v = tok.encodePadded(text, demo::kTextLength);
    return torch::tensor(std::vector<int64_t>(v.begin(), v.end())).unsqueeze(0);  // [1, L]
}

}  // namespace

TEST(DemoRefit, BaseResidualStreamsComeBackAtTheirNaturalScale) {
    demo::BaseCheckpoint base = demo::loadBaseCheckpoint(findDemoModel());
    // A power of two, so undoing it is exact in bf16, and large: the shipped streams overflow fp16.
    EXPECT_EQ(base.residualScale, std::exp2(std::round(std::log2(base.residualScale))));
    EXPECT_GE(base.residualScale, 256);
    auto text = loadClipText(textConfigOf(base.tokenizer), base.textEncoder, fp32());
    auto flux = loadFluxTransformer(demo::transformerConfig(), base.transformer, fp32());
    const double peak = demo::transformerResidualPeak(text, flux, base.tokenizer);
    EXPECT_GE(peak, 32.0);
    EXPECT_LT(peak, 64.0);
    EXPECT_GE(base.vaeResidualScale, 256);
    const double vaePeak = demo::vaeDecoderResidualPeak(base.vae, base.imageSize);
    EXPECT_GE(vaePeak, 32.0);
    EXPECT_LT(vaePeak, 64.0);
}

TEST(DemoRefit, TextEncoderCarriesOverByTokenString) {
    const demo::BaseCheckpoint base = demo::loadBaseCheckpoint(findDemoModel());
    const ClipTokenizer tok = grammarTokenizerDemoRefit("refit-tok");
    const int n = int(tok.vocabSize());
    ClipTextModel target(clipTextConfigFromJson(demo::textEncoderConfig(n, n - 2, n - 1, n - 1)));
    EXPECT_GT(demo::transplantTextEncoder(base, tok, target), 512);  // bytes and shared words

    auto baseText = loadClipText(textConfigOf(base.tokenizer), base.textEncoder, fp32());
    ProbeContext quiet(PrecisionPlan(), torch::Device(torch::kCPU), ProbeLevel::Off);
    torch::NoGradGuard g;
    // Words both vocabularies hold: the same embedding, token by token and pooled.
    const std::string caption = "a large red circle on the left, blue background";
    const auto want = baseText->forward(idsOf(base.tokenizer, caption), quiet);
    const auto got = target->forward(idsOf(tok, caption), quiet);
    EXPECT_TRUE(torch::allclose(got.lastHiddenState, want.lastHiddenState, 1e-5, 1e-5));
    EXPECT_TRUE(torch::allclose(got.poolerOutput, want.poolerOutput, 1e-5, 1e-5));
}

TEST(DemoRefit, NewWordsStartFromTheirSynonymOrTheMeanRow) {
    // A base that knows only a few words, with random weights.
    const std::string dir = test::tempDir("refit-syn");
    demo::writeTokenizerFolder(dir + "/base", demo::learnBpe({"large", "red", "circle"}),
                               demo::kTextLength);
    demo::BaseCheckpoint base{{}, {}, 1, ClipTokenizer::fromFolder(dir + "/base")};
    ClipTextModel baseText(clipTextConfigFromJson(textConfigOf(base.tokenizer)));
    base.textEncoder = stateOf(*baseText);
    const ClipTokenizer tok = grammarTokenizerDemoRefit("refit-syn-new");
    const int n = int(tok.vocabSize());
    ClipTextModel target(clipTextConfigFromJson(demo::textEncoderConfig(n, n - 2, n - 1, n - 1)));
    demo::transplantTextEncoder(base, tok, target);

    const auto& from = base.textEncoder.at("text_model.embeddings.token_embedding.weight");
    const auto rows = stateOf(*target).at("text_model.embeddings.token_embedding.weight");
    auto row = [](const ClipTokenizer& t, const torch::Tensor& r, const std::string& token) {
        const auto id = t.idOf(token);
        EXPECT_TRUE(id.has_value()) << token;
        return r[id.value_or(0)];
    };
    EXPECT_TRUE(torch::equal(row(tok, rows, "red</w>"), row(base.tokenizer, from, "red</w>")));
    EXPECT_TRUE(torch::equal(row(tok, rows, "big</w>"), row(base.tokenizer, from, "large</w>")));
    EXPECT_TRUE(torch::allclose(row(tok, rows, "star</w>"), from.mean(0)));
    EXPECT_TRUE(
        torch::equal(row(tok, rows, "<|endoftext|>"), row(base.tokenizer, from, "<|endoftext|>")));
    std::filesystem::remove_all(dir);
}

TEST(DemoRefit, GrowingAVaeKeepsEveryBaseTensorAndAddsIdentityLevels) {
    // A three-level base ([32, 64, 96], as the 64-pixel demo model had) with random weights.
    auto cfg = demo::vaeConfig(1.0, 0.0);
    cfg["block_out_channels"] = {32, 64, 96};
    cfg["down_block_types"] = {"DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D"};
    cfg["up_block_types"] = {"UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"};
    const std::string dir = test::tempDir("refit-grow");
    demo::writeTokenizerFolder(dir, demo::learnBpe({"red"}), demo::kTextLength);
    demo::BaseCheckpoint base{{}, {}, 1, ClipTokenizer::fromFolder(dir)};
    base.vae = AutoencoderKL(AutoencoderKLConfig::fromJson(cfg));
    base.vaeWeights = stateOf(*base.vae);

    AutoencoderKL grown(AutoencoderKLConfig::fromJson(demo::vaeConfig(1.0, 0.0)));
    EXPECT_EQ(demo::growVae(base, grown), int(base.vaeWeights.size()));
    const WeightMap w = stateOf(*grown);
    const WeightMap& b = base.vaeWeights;
    // The encoder's blocks move one level down; the decoder's keep their places.
    EXPECT_TRUE(torch::equal(w.at("encoder.down_blocks.1.resnets.0.conv1.weight"),
                             b.at("encoder.down_blocks.0.resnets.0.conv1.weight")));
    EXPECT_TRUE(torch::equal(w.at("encoder.down_blocks.3.resnets.0.conv2.weight"),
                             b.at("encoder.down_blocks.2.resnets.0.conv2.weight")));
    EXPECT_TRUE(torch::equal(w.at("decoder.up_blocks.2.resnets.0.conv_shortcut.weight"),
                             b.at("decoder.up_blocks.2.resnets.0.conv_shortcut.weight")));
    EXPECT_TRUE(torch::equal(w.at("decoder.conv_out.weight"), b.at("decoder.conv_out.weight")));
    // The new levels add nothing to what passes through them.
    for (const char* k :
         {"encoder.down_blocks.0.resnets.0.conv2.weight",
          "decoder.up_blocks.3.resnets.1.conv2.bias", "decoder.up_blocks.2.upsamplers.0.conv.bias"})
        EXPECT_EQ(w.at(k).abs().max().item<float>(), 0.0f) << k;
    const auto up = w.at("decoder.up_blocks.2.upsamplers.0.conv.weight");  // [32, 32, 3, 3]
    EXPECT_EQ(up.sum().item<float>(), 32.0f);
    EXPECT_EQ(up.select(2, 1).select(2, 1).diagonal().sum().item<float>(), 32.0f);
    std::filesystem::remove_all(dir);
}

TEST(DemoRefit, ATinyRefitExportsAPipelineAtTheNewVaeSize) {
    namespace fs = std::filesystem;
    const std::string dir = test::tempDir("refit");
    // 64 held-out scenes: enough to tell 3 in 4 shapes read back from 9 in 10.
    demo::TrainOptions o = test::tinyTraining(dir + "/r", 2, 0, 64);
    o.base = findDemoModel();
    const auto r = demo::trainDemo(o);
    ASSERT_TRUE(r.finished);
    auto p = Pipeline::load(o.outDir, PrecisionPlan(), torch::Device(torch::kCPU));
    EXPECT_EQ(p->defaults().width, demo::kImageSize);
    // The base's latent space: the same scaling, and the same transformer shape.
    const demo::BaseCheckpoint base = demo::loadBaseCheckpoint(o.base);
    std::ifstream file(o.outDir + "/vae/config.json");
    const auto cfg = nlohmann::json::parse(file);
    EXPECT_DOUBLE_EQ(cfg.at("scaling_factor").get<double>(), base.scaling);
    EXPECT_EQ(cfg.at("block_out_channels").size(), 4u);
    // Its README names the refit and carries the base's own recipe.
    std::ifstream readme(o.outDir + "/README.md");
    const std::string text{std::istreambuf_iterator<char>(readme), {}};
    EXPECT_NE(text.find("refitted from a demo checkpoint"), std::string::npos);
    EXPECT_NE(text.find("### The base checkpoint's training\n\n- "), std::string::npos);
    // A grown VAE draws most shapes from the start (about 3 in 4 before training): the identity
    // levels pass on what the base decoder drew at its own size. One of the same depth keeps
    // what it read back, as two small steps barely move it.
    if (base.vae->config().blockOutChannels.size() < 4) {
        EXPECT_GT(r.vaeShapes, 0.5);
        EXPECT_LT(r.vaeShapes, 1.0);
    } else {
        EXPECT_GT(r.vaeShapes, 0.9);
    }
    EXPECT_NE(text.find("% of held-out one-object reconstructions read back"), std::string::npos);
    fs::remove_all(dir);
}

// --vae-steps 0 --dit-steps 0: only the decoder trains, on whole pictures from the base's
// latents; the transformer and the VAE encoder (the latent space) leave as they came.
TEST(DemoRefit, ADecoderOnlyRefitMovesTheDecoderAlone) {
    namespace fs = std::filesystem;
    const std::string dir = test::tempDir("refit-decoder");
    demo::TrainOptions o;
    o.outDir = dir + "/r";
    o.base = findDemoModel();
    o.vaeSteps = 0;
    o.ditSteps = 0;
    o.decoderSteps = 3;
    o.decoderBatch = 2;
    o.heldOutScenes = 16;
    const auto r = demo::trainDemo(o);
    ASSERT_TRUE(r.finished);
    EXPECT_EQ(r.decoderStepsDone, 3);
    const auto open = [](const std::string& folder, const char* file) {
        return SafetensorsFile::open(folder + "/" + file);
    };
    const char* kTransformer = "transformer/diffusion_pytorch_model.safetensors";
    const auto baseDit = open(o.base, kTransformer), dit = open(o.outDir, kTransformer);
    ASSERT_EQ(dit->tensors().size(), baseDit->tensors().size());
    for (const auto& t : baseDit->tensors())
        EXPECT_TRUE(torch::equal(dit->tensor(t.name), baseDit->tensor(t.name))) << t.name;
    const char* kVae = "vae/diffusion_pytorch_model.safetensors";
    const auto baseVae = open(o.base, kVae), vae = open(o.outDir, kVae);
    if (baseVae->tensors().size() < vae->tensors().size()) {
        // A shallower base: the grown levels start as the identity (zero second convolutions);
        // the encoder's stays so, the decoder's has learnt something.
        EXPECT_EQ(
            vae->tensor("encoder.down_blocks.0.resnets.0.conv2.weight").abs().max().item<float>(),
            0.0f);
        EXPECT_GT(
            vae->tensor("decoder.up_blocks.3.resnets.1.conv2.weight").abs().max().item<float>(),
            0.0f);
    } else {
        int moved = 0;
        for (const auto& t : baseVae->tensors()) {
            const bool same = torch::equal(vae->tensor(t.name), baseVae->tensor(t.name));
            if (t.name.rfind("decoder.", 0) == 0 || t.name.rfind("post_quant_conv.", 0) == 0)
                moved += !same;
            else
                EXPECT_TRUE(same) << t.name;
        }
        EXPECT_GT(moved, 0);
    }
    std::ifstream readme(o.outDir + "/README.md");
    const std::string text{std::istreambuf_iterator<char>(readme), {}};
    EXPECT_NE(text.find("whole pictures from the base's latents"), std::string::npos);
    fs::remove_all(dir);
}

TEST(DemoRefit, AFolderThatIsNotADemoPipelineIsNamed) {
    const std::string dir = test::tempDir("refit-bad");
    demo::TrainOptions o;
    o.outDir = dir + "/r";
    o.base = dir;  // empty: no tokenizer, no weights
    try {
        demo::trainDemo(o);
        FAIL() << "an empty base folder was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find(dir), std::string::npos) << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(o.outDir + "/model_index.json"));
    std::filesystem::remove_all(dir);
}
