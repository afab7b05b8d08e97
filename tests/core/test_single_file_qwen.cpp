// Qwen text encoders in single files without config.json: the golden transformers Qwen3Model and
// Qwen2Model weights written as ComfyUI's qwen_3_06b_base.safetensors / qwen_2.5_vl_7b
// (under "model.", with lm_head and a visual tensor) and as their own bare model.safetensors;
// the config inferred from shapes, golden parity through run() and run-module, and a missing
// layer tensor named.
#include <gtest/gtest.h>

#include "families/qwen/qwen_single_file.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;

const std::vector<std::string> kQwenFields{
    "architectures",     "vocab_size",          "hidden_size",         "intermediate_size",
    "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "rms_norm_eps",
    "rope_theta",        "hidden_act"};

void expectQwenConfig(const nlohmann::json& got, const nlohmann::json& want,
                      const std::string& name) {
    for (const auto& k : kQwenFields) EXPECT_EQ(got.value(k, nlohmann::json()), want[k]) << k;
    // head_dim: explicit in Qwen3's config; hidden / heads in Qwen2's.
    const int wantHeadDim = want.contains("head_dim") ? want["head_dim"].get<int>()
                                                      : want["hidden_size"].get<int>() /
                                                            want["num_attention_heads"].get<int>();
    EXPECT_EQ(got.value("head_dim", 0), wantHeadDim) << name;
    EXPECT_EQ(got.value("attention_bias", false), want.value("attention_bias", false)) << name;
}

// The worst relative error over every output of `want`.
double worstErrorSingleFileQwen(const NamedTensors& got, const NamedTensors& want) {
    size_t compared = 0;
    const double worst = test::worstOutputError(got, want, &compared);
    if (worst < 1e9) EXPECT_EQ(compared, 5u);  // last_hidden_state and hidden_states.0 .. 3
    return worst;
}

NamedTensors inputsOnly(const NamedTensors& io) {
    NamedTensors in;
    for (const auto& kv : io)
        if (kv.first.rfind("in.", 0) == 0) in.emplace(kv.first, kv.second);
    return in;
}

// The golden weights as ComfyUI saves them: under "model.", with an lm_head (and, for Qwen2,
// a tensor of Qwen2.5-VL's vision tower).
WeightMap comfyWeights(const std::string& name) {
    WeightMap w;
    for (const auto& kv : test::openWeights(dataPath("golden/" + name + "/model.safetensors")))
        w["model." + kv.first] = kv.second;
    w["lm_head.weight"] = torch::zeros({200, 48});
    if (name == "qwen2") w["visual.patch_embed.proj.weight"] = torch::zeros({8, 3, 2, 2, 2});
    return w;
}

TEST(SingleFileQwen, ComfyUiFilesReproduceTheGolden) {
    const test::ScopedDir tmp("qwen-single");
    for (const std::string name : {"qwen3", "qwen2"}) {
        const std::string path =
            test::writeWeights(tmp.path, name + "_comfy.safetensors", comfyWeights(name));
        const SingleFileContents f = readSingleFile(path);
        ASSERT_EQ(f.components.size(), 1u) << name;
        const ConvertedComponent& c = f.components[0];
        EXPECT_EQ(c.slot, "text_encoder");
        EXPECT_EQ(c.className, name == "qwen3" ? "Qwen3Model" : "Qwen2Model");
        expectQwenConfig(c.config, test::readJsonAt(dataPath("golden/" + name + "/config.json")),
                         name);
        test::expectSameWeights(
            c.weights, test::openWeights(dataPath("golden/" + name + "/model.safetensors")));
        std::vector<std::string> ignored{"lm_head.weight"};
        if (name == "qwen2") ignored.push_back("visual.patch_embed.proj.weight");
        EXPECT_EQ(f.ignored, ignored) << name;
        EXPECT_EQ(detectSingleFile(test::openWeights(path)),
                  std::vector<std::string>{"Qwen text encoder (transformers keys) (model.*)"});

        const NamedTensors io = test::openTensors(dataPath("golden/" + name + "_io.safetensors"));
        const double err =
            worstErrorSingleFileQwen(test::runConverted(c, inputsOnly(io), path), io);
        std::printf("  %s single file: worst rel err %.3e\n", name.c_str(), err);
        EXPECT_LE(err, 1e-4) << name;
    }
}

TEST(SingleFileQwen, DescriptionsSayWhatWasAssumed) {
    const test::ScopedDir tmp("qwen-single-desc");
    const auto q3 =
        readSingleFile(test::writeWeights(tmp.path, "q3.safetensors", comfyWeights("qwen3")));
    EXPECT_EQ(q3.components.at(0).description,
              "Qwen3 text encoder (Qwen3Model), transformers keys under model., 3 layers, hidden "
              "48, 4 heads (2 kv) x 16, intermediate 80, vocab 200, fp32; assumed: rope_theta "
              "1e6, rms_norm_eps 1e-6, max_position_embeddings 40960");
    const auto q2 =
        readSingleFile(test::writeWeights(tmp.path, "q2.safetensors", comfyWeights("qwen2")));
    EXPECT_EQ(q2.components.at(0).description,
              "Qwen2.5-VL language model text encoder (Qwen2Model), transformers keys under "
              "model., 3 layers, hidden 48, 4 heads (2 kv) x 12, intermediate 80, vocab 200, "
              "fp32; assumed: head_dim 12, rope_theta 1e6, rms_norm_eps 1e-6, "
              "max_position_embeddings 128000");
}

TEST(SingleFileQwen, Qwen2HeadDimIs128ForRealWidthsAndFourHeadsForTestSizes) {
    EXPECT_EQ(qwen2HeadDimFor(3584, 512), 128);  // Qwen2.5-VL-7B: 28 heads, 4 kv heads
    EXPECT_EQ(qwen2HeadDimFor(1536, 256), 128);  // Qwen2.5-1.5B
    EXPECT_EQ(qwen2HeadDimFor(48, 24), 12);      // the golden test model
    EXPECT_THROW(qwen2HeadDimFor(300, 100), ConfigError);
    EXPECT_THROW(qwen2HeadDimFor(48, 20), ConfigError);
}

TEST(SingleFileQwen, RunModuleTakesTheComfyUiFile) {
    const test::ScopedDir tmp("qwen-single-cli");
    for (const std::string name : {"qwen3", "qwen2"}) {
        const std::string path =
            test::writeWeights(tmp.path, name + ".safetensors", comfyWeights(name));
        const std::string out = tmp.path + "/" + name + "_out.safetensors";
        int status = -1;
        const std::string printed = test::runCli(
            "run-module --model '" + path + "' --inputs '" +
                dataPath("golden/" + name + "_io.safetensors") + "' --output '" + out + "'",
            status);
        ASSERT_EQ(status, 0) << printed;
        EXPECT_NE(printed.find("as 'text_encoder'"), std::string::npos) << printed;
        const NamedTensors io = test::openTensors(dataPath("golden/" + name + "_io.safetensors"));
        EXPECT_LE(worstErrorSingleFileQwen(test::openTensors(out), io), 1e-4) << name;
    }
}

TEST(SingleFileQwen, TheGoldenModelFileItselfOpensAsASingleFile) {
    // transformers' Qwen3Model / Qwen2Model keys with no prefix.
    for (const std::string name : {"qwen3", "qwen2"}) {
        const std::string path = dataPath("golden/" + name + "/model.safetensors");
        EXPECT_EQ(detectSingleFile(test::openWeights(path)),
                  std::vector<std::string>{"Qwen text encoder (transformers keys) (at the root)"});
        const SingleFileContents f = readSingleFile(path);
        ASSERT_EQ(f.components.size(), 1u);
        EXPECT_TRUE(f.ignored.empty());
        const NamedTensors io = test::openTensors(dataPath("golden/" + name + "_io.safetensors"));
        EXPECT_LE(
            worstErrorSingleFileQwen(test::runConverted(f.components[0], inputsOnly(io), path), io),
            1e-4)
            << name;
    }
}

TEST(SingleFileQwen, Qwen25VlNestedLanguageModelKeysConvert) {
    // transformers >= 4.52 saves Qwen2.5-VL's language model under model.language_model.
    WeightMap w;
    for (const auto& kv : test::openWeights(dataPath("golden/qwen2/model.safetensors")))
        w["model.language_model." + kv.first] = kv.second;
    w["model.visual.patch_embed.proj.weight"] = torch::zeros({8, 3, 2, 2, 2});
    const SingleFileContents f = convertSingleFile(w, "vl.safetensors");
    ASSERT_EQ(f.components.size(), 1u);
    EXPECT_EQ(f.components[0].className, "Qwen2Model");
    EXPECT_EQ(f.components[0].weights.size(), w.size() - 1);
    EXPECT_EQ(f.ignored, std::vector<std::string>{"model.visual.patch_embed.proj.weight"});
}

TEST(SingleFileQwen, AMissingLayerTensorIsNamed) {
    WeightMap w = comfyWeights("qwen3");
    w.erase("model.layers.1.self_attn.k_norm.weight");
    std::string m =
        test::errorOf<WeightError>([&] { convertSingleFile(w, "qwen_3_06b_base.safetensors"); });
    EXPECT_NE(m.find("qwen_3_06b_base.safetensors: Qwen text encoder (transformers keys): "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("model.layers.1.self_attn.k_norm.weight"), std::string::npos) << m;

    WeightMap v = comfyWeights("qwen2");
    v.erase("model.layers.2.mlp.up_proj.weight");
    m = test::errorOf<WeightError>([&] { convertSingleFile(v, "qwen_2.5_vl_7b.safetensors"); });
    EXPECT_NE(m.find("model.layers.2.mlp.up_proj.weight"), std::string::npos) << m;

    // A whole layer gone: a gap in the numbering.
    WeightMap g = comfyWeights("qwen3");
    for (auto it = g.begin(); it != g.end();)
        it = it->first.rfind("model.layers.1.", 0) == 0 ? g.erase(it) : std::next(it);
    m = test::errorOf<WeightError>([&] { convertSingleFile(g, "gap.safetensors"); });
    EXPECT_NE(m.find("model.layers.1"), std::string::npos) << m;
}

}  // namespace
}  // namespace hs
