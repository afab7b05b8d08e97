// Component and pipeline folders: weight file discovery (plain, variants, shards), the pickle
// refusal, config errors, model_index.json; on the golden folders and on folders built here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/model_folder.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

using hs::test::writeTextFile;

// The FileError's message; another exception is a failure.
template <typename Fn>
std::string errorOfModelFolder(Fn fn) {
    return hs::test::messageOf<hs::FileError>(fn);
}

class ModelFolderTest : public hs::test::TempDirTest {
protected:
    std::string sub(const std::string& rel) const { return m_dir + "/" + rel; }
    // A component folder with a diffusers config and the given weight files (one F32 or F16
    // tensor each, named after the file so tests can tell which was opened).
    std::string component(const std::string& name, const std::vector<std::string>& weightFiles,
                          torch::ScalarType dtype = torch::kFloat32) {
        const std::string d = sub(name);
        writeTextFile(d + "/config.json",
                      R"({"_class_name": "AutoencoderKL", "latent_channels": 4})");
        for (const auto& w : weightFiles)
            hs::writeSafetensors(d + "/" + w, {{"w." + w, torch::ones({2}, dtype)}});
        return d;
    }
};

}  // namespace

TEST_F(ModelFolderTest, GoldenFolders) {
    auto vae = hs::openComponent(hs::test::dataPath("golden/vae"));
    EXPECT_EQ(vae.className, "AutoencoderKL");
    EXPECT_EQ(vae.variant, "");
    ASSERT_EQ(vae.weightFiles.size(), 1u);
    EXPECT_EQ(fs::path(vae.weightFiles[0]).filename(), "diffusion_pytorch_model.safetensors");
    EXPECT_TRUE(vae.weights.contains("decoder.conv_in.weight"));
    EXPECT_EQ(vae.config["latent_channels"], 4);

    auto clip = hs::openComponent(hs::test::dataPath("golden/clip"));
    EXPECT_EQ(clip.className, "CLIPTextModel");  // transformers: architectures[0]
    EXPECT_EQ(fs::path(clip.weightFiles[0]).filename(), "model.safetensors");
    EXPECT_TRUE(clip.weights.contains("text_model.embeddings.token_embedding.weight"));

    auto flux = hs::openComponent(hs::test::dataPath("golden/flux"));
    EXPECT_EQ(flux.className, "FluxTransformer2DModel");
    EXPECT_EQ(flux.weights.names().size(), 66u);

    EXPECT_TRUE(hs::isComponentFolder(hs::test::dataPath("golden/vae")));
    EXPECT_FALSE(hs::isPipelineFolder(hs::test::dataPath("golden/vae")));
    EXPECT_FALSE(hs::isComponentFolder(hs::test::dataPath("golden/clip_tokenizer")));
}

TEST_F(ModelFolderTest, Variants) {
    // Plain and fp16: plain by default, fp16 on request.
    auto d = component("both", {"diffusion_pytorch_model.safetensors",
                                "diffusion_pytorch_model.fp16.safetensors"});
    auto plain = hs::openComponent(d);
    EXPECT_TRUE(plain.weights.contains("w.diffusion_pytorch_model.safetensors"));
    auto fp16 = hs::openComponent(d, "fp16");
    EXPECT_EQ(fp16.variant, "fp16");
    EXPECT_TRUE(fp16.weights.contains("w.diffusion_pytorch_model.fp16.safetensors"));
    EXPECT_HAS(errorOfModelFolder([&] { hs::openComponent(d, "bf16"); }), "no 'bf16' weights");

    // Only one variant: used, and said so.
    auto only = component("only", {"model.bf16.safetensors"});
    auto bf16 = hs::openComponent(only);
    EXPECT_EQ(bf16.variant, "bf16");
    EXPECT_EQ(fs::path(bf16.weightFiles[0]).filename(), "model.bf16.safetensors");

    // Several variants and no plain weights: the caller must choose.
    auto two = component("two", {"diffusion_pytorch_model.fp16.safetensors",
                                 "diffusion_pytorch_model.bf16.safetensors"});
    const std::string e = errorOfModelFolder([&] { hs::openComponent(two); });
    EXPECT_HAS(e, "several variants (bf16, fp16)");
    EXPECT_HAS(e, two);
    // A missing requested variant lists what is there.
    EXPECT_HAS(errorOfModelFolder([&] { hs::openComponent(two, "fp32"); }),
               "variants present: 'bf16', 'fp16'");
}

TEST_F(ModelFolderTest, ShardedWeights) {
    auto d = component("sharded", {"diffusion_pytorch_model-00001-of-00002.safetensors",
                                   "diffusion_pytorch_model-00002-of-00002.safetensors"});
    writeTextFile(d + "/diffusion_pytorch_model.safetensors.index.json",
                  R"({"weight_map": {
                   "w.diffusion_pytorch_model-00001-of-00002.safetensors": "diffusion_pytorch_model-00001-of-00002.safetensors",
                   "w.diffusion_pytorch_model-00002-of-00002.safetensors": "diffusion_pytorch_model-00002-of-00002.safetensors"}})");
    auto c = hs::openComponent(d);
    EXPECT_EQ(c.weightFiles.size(), 2u);
    EXPECT_EQ(c.weights.names().size(), 2u);

    // A sharded variant, named as diffusers names it (and not mistaken for a variant "fp16-0001").
    auto v = component("sharded_fp16", {"model.fp16-00001-of-00001.safetensors"}, torch::kFloat16);
    writeTextFile(
        v + "/model.safetensors.index.fp16.json",
        R"({"weight_map": {"w.model.fp16-00001-of-00001.safetensors": "model.fp16-00001-of-00001.safetensors"}})");
    auto cv = hs::openComponent(v);
    EXPECT_EQ(cv.variant, "fp16");
    EXPECT_EQ(cv.weights.tensor("w.model.fp16-00001-of-00001.safetensors").scalar_type(),
              torch::kFloat16);
}

TEST_F(ModelFolderTest, RefusesPickle) {
    auto d = component("pickle", {});
    writeTextFile(d + "/diffusion_pytorch_model.bin", "not really a pickle");
    const std::string e = errorOfModelFolder([&] { hs::openComponent(d); });
    EXPECT_HAS(e, d);
    EXPECT_HAS(e, "diffusion_pytorch_model.bin");
    EXPECT_HAS(e, "arbitrary code");
    EXPECT_HAS(e, "save_file");
    EXPECT_HAS(e, ".safetensors");

    // A pickle beside safetensors weights is simply ignored.
    auto mixed = component("mixed", {"model.safetensors"});
    writeTextFile(mixed + "/pytorch_model.bin", "x");
    EXPECT_NO_THROW(hs::openComponent(mixed));
}

TEST_F(ModelFolderTest, ComponentErrors) {
    auto none = component("none", {});
    EXPECT_HAS(errorOfModelFolder([&] { hs::openComponent(none); }),
               "no weights: expected diffusion_pytorch_model.safetensors");
    hs::writeSafetensors(none + "/ae.safetensors", {{"x", torch::ones({1})}});
    EXPECT_HAS(errorOfModelFolder([&] { hs::openComponent(none); }), "found only ae.safetensors");

    fs::create_directories(sub("noconfig"));
    const std::string e = errorOfModelFolder([&] { hs::openComponent(sub("noconfig")); });
    EXPECT_HAS(e, "noconfig/config.json");
    EXPECT_HAS(e, "missing config.json");

    writeTextFile(sub("badjson/config.json"), "{\n  \"a\": 1,\n  \"b\": ]\n}");
    const std::string j = errorOfModelFolder([&] { hs::openComponent(sub("badjson")); });
    EXPECT_HAS(j, "badjson/config.json: invalid JSON");
    EXPECT_HAS(j, "line 3");

    EXPECT_HAS(errorOfModelFolder([&] { hs::openComponent(sub("absent")); }), "not a folder");

    // A broken weights file is reported with its own path.
    auto corrupt = component("corrupt", {});
    writeTextFile(corrupt + "/model.safetensors", "garbage!garbage!");
    EXPECT_HAS(errorOfModelFolder([&] { hs::openComponent(corrupt); }),
               "corrupt/model.safetensors: header length");
}

TEST_F(ModelFolderTest, Pipeline) {
    const std::string p = sub("pipe");
    writeTextFile(p + "/model_index.json", R"({
        "_class_name": "FluxPipeline", "_diffusers_version": "0.30.0",
        "scheduler": ["diffusers", "FlowMatchEulerDiscreteScheduler"],
        "text_encoder": ["transformers", "CLIPTextModel"],
        "text_encoder_2": [null, null],
        "tokenizer": ["transformers", "CLIPTokenizer"],
        "transformer": ["diffusers", "FluxTransformer2DModel"],
        "vae": ["diffusers", "AutoencoderKL"],
        "requires_safety_checker": false})");
    hs::test::linkGoldenFluxComponents(p);
    fs::create_directories(p + "/tokenizer");
    for (const char* f : {"vocab.json", "merges.txt"})
        fs::create_symlink(
            fs::absolute(hs::test::dataPath(std::string("golden/clip_tokenizer/") + f)),
            p + "/tokenizer/" + f);
    writeTextFile(p + "/scheduler/scheduler_config.json",
                  R"({"_class_name": "FlowMatchEulerDiscreteScheduler", "shift": 3.0})");

    EXPECT_TRUE(hs::isPipelineFolder(p));
    EXPECT_FALSE(hs::isComponentFolder(p));
    auto pipe = hs::openPipeline(p);
    EXPECT_EQ(pipe.className, "FluxPipeline");
    ASSERT_EQ(pipe.components.size(), 5u);  // text_encoder_2 (null) and the option skipped
    EXPECT_EQ(pipe.find("text_encoder_2"), nullptr);
    ASSERT_NE(pipe.find("tokenizer"), nullptr);
    EXPECT_EQ(pipe.find("tokenizer")->kind, hs::ComponentKind::Tokenizer);
    EXPECT_EQ(pipe.find("scheduler")->kind, hs::ComponentKind::Scheduler);
    EXPECT_EQ(pipe.find("vae")->kind, hs::ComponentKind::Model);
    EXPECT_EQ(pipe.find("vae")->library, "diffusers");
    EXPECT_EQ(pipe.find("text_encoder")->className, "CLIPTextModel");
    EXPECT_EQ(hs::openComponent(pipe.find("transformer")->dir).className, "FluxTransformer2DModel");

    // A listed component whose folder is missing.
    fs::remove_all(p + "/scheduler");
    const std::string e = errorOfModelFolder([&] { hs::openPipeline(p); });
    EXPECT_HAS(e, "pipe/model_index.json");
    EXPECT_HAS(e, "component 'scheduler'");
    EXPECT_HAS(e, "is missing");

    writeTextFile(sub("bad/model_index.json"), R"({"vae": ["diffusers"]})");
    EXPECT_HAS(errorOfModelFolder([&] { hs::openPipeline(sub("bad")); }),
               "must be [library, class]");
    EXPECT_HAS(errorOfModelFolder([&] { hs::openPipeline(sub("nothing")); }),
               "missing model_index.json");
}

// diffusers' modular pipelines (Anima) save modular_model_index.json: [library, class, spec],
// the spec's subfolder naming the folder; a component not loaded at save time is [null, null,
// spec] with its class in type_hint; one made from a config at run time has no spec.
TEST_F(ModelFolderTest, ModularPipeline) {
    const std::string p = sub("modular");
    writeTextFile(p + "/modular_model_index.json", R"({
        "_blocks_class_name": "AnimaAutoBlocks", "_class_name": "AnimaModularPipeline",
        "vae": ["diffusers", "AutoencoderKLQwenImage",
                {"pretrained_model_name_or_path": "/home/me/anima", "subfolder": "vae",
                 "type_hint": ["diffusers", "AutoencoderKLQwenImage"], "variant": null}],
        "text_encoder": [null, null,
                {"pretrained_model_name_or_path": "/home/me/anima", "subfolder": "te",
                 "type_hint": ["transformers", "Qwen3Model"]}],
        "guider": ["diffusers", "ClassifierFreeGuidance", null]})");
    component("modular/vae", {"diffusion_pytorch_model.safetensors"});
    component("modular/te", {"model.safetensors"});
    EXPECT_TRUE(hs::isPipelineFolder(p));
    auto pipe = hs::openPipeline(p);
    EXPECT_EQ(pipe.className, "AnimaModularPipeline");
    ASSERT_EQ(pipe.components.size(), 2u);  // the guider has no folder
    ASSERT_NE(pipe.find("text_encoder"), nullptr);
    EXPECT_EQ(pipe.find("text_encoder")->className, "Qwen3Model");
    EXPECT_EQ(pipe.find("text_encoder")->dir, p + "/te");
    EXPECT_EQ(pipe.find("vae")->kind, hs::ComponentKind::Model);

    // A component that lives in another repository is named with where the index points.
    fs::remove_all(p + "/te");
    const std::string e = errorOfModelFolder([&] { hs::openPipeline(p); });
    EXPECT_HAS(e, "modular_model_index.json");
    EXPECT_HAS(e, "component 'text_encoder'");
    EXPECT_HAS(e, "/home/me/anima");
}
