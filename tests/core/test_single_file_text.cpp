// Text encoders in single files: SD 1.5's cond_stage_model.transformer.* against the golden
// output, ComfyUI's clip_l.safetensors (with and without text_projection, and under the
// all-in-one prefix), the heads rule, and ComfyUI's T5 files rewritten from the golden T5.
#include <gtest/gtest.h>

#include "families/clip/clip_single_file.h"
#include "families/t5/t5_single_file.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;

const std::vector<std::string> kClipFields{
    "vocab_size",          "hidden_size",       "intermediate_size",
    "num_attention_heads", "num_hidden_layers", "max_position_embeddings",
    "hidden_act",          "layer_norm_eps",    "bos_token_id",
    "eos_token_id",        "pad_token_id"};

TEST(SingleFileClip, Sd15CheckpointClipReproducesTheGoldenHiddenStates) {
    const std::string path = dataPath("golden/sd15_single.safetensors");
    const SingleFileContents f = readSingleFile(path);
    const ConvertedComponent& clip = test::componentIn(f, "text_encoder", "CLIPTextModel");
    // Width 32 with 4 heads: the test-sized branch of the heads rule gives the golden's heads.
    test::expectFields(clip.config, test::sd15SingleReference()["clip_config"], kClipFields);
    EXPECT_EQ(clip.description,
              "CLIP text encoder (CLIPTextModel), transformers keys under "
              "cond_stage_model.transformer., 3 layers, width 32, fp32; assumed: 4 heads "
              "(test-sized width), quick_gelu, argmax pooling");

    test::expectSd15SingleOutput(clip, "clip", "last_hidden_state");
}

TEST(SingleFileClip, HeadsAre64WideForRealWidthsAndFourForTestSizes) {
    EXPECT_EQ(clipHeadsFor(768), 12);   // CLIP-L
    EXPECT_EQ(clipHeadsFor(1024), 16);  // OpenCLIP ViT-H
    EXPECT_EQ(clipHeadsFor(1280), 20);  // OpenCLIP ViT-bigG
    EXPECT_EQ(clipHeadsFor(512), 8);    // CLIP-B
    EXPECT_EQ(clipHeadsFor(32), 4);     // the golden test models
    EXPECT_THROW(clipHeadsFor(300), ConfigError);
    EXPECT_THROW(clipHeadsFor(30), ConfigError);
}

TEST(SingleFileClip, ComfyUiClipLConvertsAndMatchesTheGolden) {
    const WeightMap golden = test::openWeights(dataPath("golden/clip/model.safetensors"));
    const auto goldenConfig = test::readJsonAt(dataPath("golden/clip/config.json"));
    const NamedTensors io = test::openTensors(dataPath("golden/clip_io.safetensors"));
    const test::ScopedDir tmp("clip-l");
    const std::string& dir = tmp.path;

    // As ComfyUI saves it: the transformers keys and the position_ids buffer.
    WeightMap comfy = golden;
    comfy["text_model.embeddings.position_ids"] = torch::arange(77).unsqueeze(0);
    const std::string plain = test::writeWeights(dir, "clip_l.safetensors", comfy);
    const SingleFileContents f = readSingleFile(plain);
    ASSERT_EQ(f.components.size(), 1u);
    const ConvertedComponent& c = f.components[0];
    EXPECT_EQ(c.slot, "text_encoder");
    EXPECT_EQ(c.className, "CLIPTextModel");
    test::expectFields(c.config, goldenConfig, kClipFields);
    test::expectSameWeights(c.weights, golden);  // position_ids dropped
    const NamedTensors out = test::runConverted(c, io, plain);
    int compared = 0;
    for (const auto& kv : io) {
        if (kv.first.rfind("out.", 0) != 0) continue;
        EXPECT_LE(test::relErr(out.at(kv.first), kv.second), 1e-4) << kv.first;
        ++compared;
    }
    EXPECT_EQ(compared, 8);

    // With text_projection.weight, under ComfyUI's all-in-one prefix.
    torch::manual_seed(8);
    WeightMap projected = golden;
    projected["text_projection.weight"] = torch::randn({24, 32});
    const std::string aio =
        test::writeWeights(dir, "aio.safetensors", projected, "text_encoders.clip_l.transformer.");
    const SingleFileContents g = readSingleFile(aio);
    ASSERT_EQ(g.components.size(), 1u);
    const ConvertedComponent& p = g.components[0];
    EXPECT_EQ(p.className, "CLIPTextModelWithProjection");
    EXPECT_EQ(p.config["projection_dim"], 24);
    EXPECT_NE(p.description.find("under text_encoders.clip_l.transformer."), std::string::npos);
    const NamedTensors po = test::runConverted(p, {{"in.input_ids", io.at("in.input_ids")}});
    EXPECT_LE(test::relErr(po.at("out.pooler_output"), io.at("out.pooler_output")), 1e-4);
    const auto embeds = torch::matmul(io.at("out.pooler_output"),
                                      projected.at("text_projection.weight").t());  // [B, 24]
    EXPECT_LE(test::relErr(po.at("out.text_embeds"), embeds), 1e-4);
}

// --- T5 ------------------------------------------------------------------------------------

const std::vector<std::string> kT5Fields{"vocab_size",
                                         "d_model",
                                         "d_kv",
                                         "d_ff",
                                         "num_heads",
                                         "num_layers",
                                         "relative_attention_num_buckets",
                                         "feed_forward_proj",
                                         "dense_act_fn",
                                         "is_gated_act",
                                         "layer_norm_epsilon"};

ConvertedComponent convertT5File(const WeightMap& w, const std::string& dir,
                                 const std::string& name, const std::string& prefix = "") {
    const SingleFileContents f = readSingleFile(test::writeWeights(dir, name, w, prefix));
    EXPECT_EQ(f.components.size(), 1u);
    EXPECT_TRUE(f.ignored.empty());
    return f.components.at(0);
}

TEST(SingleFileT5, ComfyUiT5FilesGiveTheGoldenConfigAndKeys) {
    const WeightMap golden = test::openWeights(dataPath("golden/t5/model.safetensors"));
    const auto goldenConfig = test::readJsonAt(dataPath("golden/t5/config.json"));
    const test::ScopedDir tmp("t5");
    const std::string& dir = tmp.path;
    const std::string emb = "encoder.embed_tokens.weight";

    WeightMap both = golden;  // transformers' tied embedding saved twice
    both[emb] = golden.at("shared.weight");
    WeightMap onlyEmbed = golden;
    onlyEmbed.erase("shared.weight");
    onlyEmbed[emb] = golden.at("shared.weight");
    const std::vector<std::pair<std::string, ConvertedComponent>> cases{
        {"shared only", convertT5File(golden, dir, "a.safetensors")},
        {"shared and embed_tokens", convertT5File(both, dir, "b.safetensors")},
        {"embed_tokens only", convertT5File(onlyEmbed, dir, "c.safetensors")},
        {"all-in-one prefix",
         convertT5File(golden, dir, "d.safetensors", "text_encoders.t5xxl.transformer.")}};
    for (const auto& [what, c] : cases) {
        SCOPED_TRACE(what);
        EXPECT_EQ(c.slot, "text_encoder_2");
        EXPECT_EQ(c.className, "T5EncoderModel");
        for (const auto& k : kT5Fields) EXPECT_EQ(c.config[k], goldenConfig[k]) << k;
        // Not in a single file: T5's 128, where this tiny golden model uses 16.
        EXPECT_EQ(c.config["relative_attention_max_distance"], 128);
        test::expectSameWeights(c.weights, golden);
    }
    EXPECT_EQ(cases[0].second.description,
              "T5 encoder (T5EncoderModel, gated-gelu, v1.1 style), transformers keys, 2 layers, "
              "d_model 32, 4 heads x 8, d_ff 37, vocab 1000, fp32; "
              "relative_attention_max_distance 128 assumed");
}

TEST(SingleFileT5, ReluFeedForwardAndErrors) {
    const WeightMap golden = test::openWeights(dataPath("golden/t5/model.safetensors"));
    const test::ScopedDir tmp("t5-errors");
    const std::string& dir = tmp.path;

    WeightMap v10 = golden;  // T5 v1.0: one wi, relu
    for (int i = 0; i < 2; ++i) {
        const std::string ff = "encoder.block." + std::to_string(i) + ".layer.1.DenseReluDense.";
        v10[ff + "wi.weight"] = v10.at(ff + "wi_0.weight");
        v10.erase(ff + "wi_0.weight");
        v10.erase(ff + "wi_1.weight");
    }
    const ConvertedComponent relu = convertT5File(v10, dir, "v10.safetensors");
    EXPECT_EQ(relu.config["feed_forward_proj"], "relu");
    EXPECT_EQ(relu.config["is_gated_act"], false);
    EXPECT_EQ(relu.config["d_ff"], 37);

    WeightMap gap = golden;  // block 0 gone, block 1 left
    for (auto it = gap.begin(); it != gap.end();)
        it = it->first.rfind("encoder.block.0.", 0) == 0 ? gap.erase(it) : std::next(it);
    std::string m =
        test::errorOf<WeightError>([&] { convertSingleFile(gap, "t5xxl.safetensors"); });
    EXPECT_NE(m.find("t5xxl.safetensors: T5 encoder (transformers keys): block 0 is missing"),
              std::string::npos)
        << m;

    WeightMap umt5 = golden;
    umt5["encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"] =
        golden.at("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
    m = test::errorOf<WeightError>([&] { convertSingleFile(umt5, "umt5.safetensors"); });
    EXPECT_NE(m.find("is UMT5"), std::string::npos) << m;

    WeightMap noNorm = golden;
    noNorm.erase("encoder.final_layer_norm.weight");
    m = test::errorOf<WeightError>([&] { convertSingleFile(noNorm, "t5.safetensors"); });
    EXPECT_NE(m.find("t5.safetensors: T5 encoder (transformers keys): missing tensor "
                     "'encoder.final_layer_norm.weight'"),
              std::string::npos)
        << m;
}

}  // namespace
}  // namespace hs
