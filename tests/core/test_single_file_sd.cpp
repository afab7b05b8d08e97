// Stable Diffusion single files (LDM / SGM layouts): the golden SD 1.5-layout checkpoint against
// diffusers' outputs for all three parts, SD 2.x- and SDXL-shaped files written from random
// diffusers UNets and converted back, other widths, real-size UNets named and configured as
// diffusers configures them, OpenCLIP text towers, what inspect and run-module say, and errors
// naming the key.
#include <gtest/gtest.h>

#include <algorithm>

#include "inspect/inspect.h"
#include "inspect/inspect_headline.h"
#include "sd_single_fixture.h"
#include "single_file_helpers.h"

namespace hs {
namespace {

using test::dataPath;
using json = nlohmann::json;

const std::string kSd15 = "golden/sd15_single.safetensors";
const std::string kSd15Io = "golden/sd15_single_io.safetensors";

// The config fields that make the architecture (sample_size is a default, not architecture).
const std::vector<std::string> kUnetArchitecture{"in_channels",
                                                 "out_channels",
                                                 "block_out_channels",
                                                 "layers_per_block",
                                                 "down_block_types",
                                                 "up_block_types",
                                                 "mid_block_type",
                                                 "attention_head_dim",
                                                 "num_attention_heads",
                                                 "cross_attention_dim",
                                                 "transformer_layers_per_block",
                                                 "reverse_transformer_layers_per_block",
                                                 "use_linear_projection",
                                                 "upcast_attention",
                                                 "addition_embed_type",
                                                 "addition_time_embed_dim",
                                                 "projection_class_embeddings_input_dim",
                                                 "class_embed_type",
                                                 "time_embedding_dim",
                                                 "only_cross_attention",
                                                 "norm_num_groups"};

// Adds the SD 1.5 checkpoint's VAE (first_stage_model.*) to `all` and writes it as the single
// file `dir`/`name`; returns its path.
std::string writeWithSd15Vae(WeightMap& all, const std::string& dir, const std::string& name) {
    for (const auto& kv : test::openWeights(dataPath(kSd15)))
        if (kv.first.rfind("first_stage_model.", 0) == 0) all.insert(kv);
    return test::writeWeights(dir, name, all);
}

// Adds the golden CLIP `clip` to `all` as OpenCLIP under `prefix` (5 layers and `extraLayers`
// random ones), its text projection [projection, 32] drawn after seeding `seed`.
void addOpenClipSingleFileSd(WeightMap& all, const WeightMap& clip, const std::string& prefix,
                             int64_t projection, uint64_t seed, int extraLayers = 0) {
    torch::manual_seed(seed);
    for (const auto& kv :
         test::clipToOpenClip(clip, 5, prefix, torch::randn({projection, 32}), extraLayers))
        all.insert(kv);
}

void expectUnetArchitecture(const json& got, const json& want) {
    for (const auto& k : kUnetArchitecture)
        EXPECT_EQ(got.value(k, json()), want.value(k, json())) << k;
}

// The file's UNet: the `diffusers` weights again, with the architecture of `config`.
const ConvertedComponent& expectUnetRoundTrip(const SingleFileContents& f,
                                              const WeightMap& diffusers, const json& config) {
    const ConvertedComponent& c = test::componentIn(f, "unet");
    test::expectSameWeights(c.weights, diffusers);
    expectUnetArchitecture(c.config, config);
    return c;
}

json goldenSd15() {
    return test::sd15SingleReference();
}

// A tiny UNet config with diffusers' defaults for everything not given.
json unetConfigSingleFileSd(json fields) {
    json c = {{"_class_name", "UNet2DConditionModel"},
              {"in_channels", 4},
              {"out_channels", 4},
              {"layers_per_block", 1},
              {"norm_num_groups", 32},
              {"attention_head_dim", 8},
              {"transformer_layers_per_block", 1},
              {"use_linear_projection", false},
              {"upcast_attention", false},
              {"mid_block_type", "UNetMidBlock2DCrossAttn"},
              {"num_attention_heads", nullptr},
              {"reverse_transformer_layers_per_block", nullptr},
              {"addition_embed_type", nullptr},
              {"addition_time_embed_dim", nullptr},
              {"projection_class_embeddings_input_dim", nullptr},
              {"class_embed_type", nullptr},
              {"time_embedding_dim", nullptr},
              {"only_cross_attention", false}};
    c.update(fields);
    return c;
}

// SD 2.x's block pattern (linear projections, cross-attention width 1024) at a tiny width.
json sd2Shaped() {
    return unetConfigSingleFileSd(
        {{"block_out_channels", {32, 64}},
         {"down_block_types", {"CrossAttnDownBlock2D", "DownBlock2D"}},
         {"up_block_types", {"UpBlock2D", "CrossAttnUpBlock2D"}},
         {"cross_attention_dim", 1024},
         {"use_linear_projection", true},
         {"upcast_attention", true},
         {"attention_head_dim", {4, 8}}});  // 8-wide heads: test-sized widths
}

// SDXL's pattern: no attention at the first level, deeper transformers below, text_time
// embedding of the pooled text (1280) and six 256-wide time ids.
json sdxlShaped() {
    return unetConfigSingleFileSd(
        {{"block_out_channels", {32, 64, 64}},
         {"layers_per_block", 2},
         {"down_block_types", {"DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"}},
         {"up_block_types", {"CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"}},
         {"cross_attention_dim", 2048},
         {"use_linear_projection", true},
         {"transformer_layers_per_block", {1, 1, 2}},
         {"attention_head_dim", {4, 8, 8}},
         {"addition_embed_type", "text_time"},
         {"addition_time_embed_dim", 256},
         {"projection_class_embeddings_input_dim", 2816}});
}

// Runs a converted UNet and the family's model of (config, weights) on the same random inputs.
void expectSameUnetOutput(const ConvertedComponent& c, const json& config, const WeightMap& w,
                          int64_t context, bool xl) {
    torch::manual_seed(11);
    NamedTensors in{{"in.sample", torch::randn({1, c.config["in_channels"].get<int64_t>(), 8, 8})},
                    {"in.timestep", torch::tensor({500}, torch::kInt64)},
                    {"in.encoder_hidden_states", torch::randn({1, 5, context})}};
    if (xl) {
        in["in.text_embeds"] = torch::randn({1, 1280});
        in["in.time_ids"] = torch::tensor({{64.f, 64.f, 0.f, 0.f, 64.f, 64.f}});
    }
    const ConvertedComponent direct{"unet", "UNet2DConditionModel", config, w, ""};
    const auto a = test::runConverted(c, in).at("out.sample");
    const auto b = test::runConverted(direct, in).at("out.sample");
    EXPECT_TRUE(torch::equal(a, b));
    EXPECT_TRUE(torch::isfinite(a).all().item<bool>());
}

TEST(SingleFileSd, Sd15CheckpointConvertsItsThreeParts) {
    const std::string path = dataPath(kSd15);
    const WeightMap all = test::openWeights(path);
    const SingleFileContents f = convertSingleFile(all, path);
    EXPECT_EQ(test::slotsOf(f),
              (std::vector<std::string>{"unet UNet2DConditionModel", "vae AutoencoderKL",
                                        "text_encoder CLIPTextModel"}));
    EXPECT_TRUE(f.notConverted.empty());
    EXPECT_TRUE(f.ignored.empty());
    const ConvertedComponent& unet = test::componentIn(f, "unet");
    expectUnetArchitecture(unet.config, goldenSd15()["unet_config"]);
    EXPECT_EQ(unet.description,
              "UNet2DConditionModel, LDM layout under model.diffusion_model.: SD 1.x-style, "
              "2.45 M parameters, 4 levels [32, 32, 64, 64], 2 layers per block, transformer "
              "depth 1, context 32, convolution projections, fp32; assumed: 8 heads (SD 1.x), 32 "
              "norm groups");
    // Views into the mapped file, not copies.
    EXPECT_EQ(unet.weights.at("up_blocks.1.attentions.2.proj_in.weight").data_ptr(),
              all.at("model.diffusion_model.output_blocks.5.1.proj_in.weight").data_ptr());
}

TEST(SingleFileSd, Sd15CheckpointReproducesDiffusersForUnetVaeAndClip) {
    const std::string path = dataPath(kSd15);
    const SingleFileContents f = readSingleFile(path);
    const struct {
        const char* slot;
        const char* part;
        const char* out;
    } cases[] = {{"unet", "unet", "sample"},
                 {"vae", "vae", "decode.sample"},
                 {"text_encoder", "clip", "last_hidden_state"}};
    for (const auto& k : cases)
        test::expectSd15SingleOutput(test::componentIn(f, k.slot), k.part, k.out);
}

TEST(SingleFileSd, Sd2ShapedFileRoundTripsWeightsAndConfig) {
    const json config = sd2Shaped();
    const WeightMap diffusers = test::randomUnet(config, 3);
    // As SD 2.x checkpoints hold it: the UNet, OpenCLIP under cond_stage_model.model. (its last
    // resblock unused) and the VAE.
    WeightMap all = test::unetToLdm(diffusers, config);
    const WeightMap clip = test::openWeights(dataPath("golden/clip/model.safetensors"));
    addOpenClipSingleFileSd(all, clip, "cond_stage_model.model.", 32, 4, /*extraLayers=*/1);
    const test::ScopedDir tmp("sd2-single");
    const SingleFileContents f = readSingleFile(writeWithSd15Vae(all, tmp.path, "sd2.safetensors"));
    EXPECT_EQ(test::slotsOf(f),
              (std::vector<std::string>{"unet UNet2DConditionModel", "vae AutoencoderKL",
                                        "text_encoder CLIPTextModel"}));
    EXPECT_EQ(test::componentIn(f, "text_encoder").config["num_hidden_layers"], 5);
    EXPECT_EQ(singleFileHeadline(f, all).rfind("SD 2.x, LDM layout: UNet ", 0), 0u)
        << singleFileHeadline(f, all);
    const ConvertedComponent& c = expectUnetRoundTrip(f, diffusers, config);
    EXPECT_EQ(c.config["sample_size"], 96);  // SD 2.1's 768 px, as diffusers assumes
    EXPECT_NE(c.description.find(": SD 2.x, "), std::string::npos) << c.description;
    EXPECT_NE(c.description.find("v-prediction at 768 px with upcast_attention"), std::string::npos)
        << c.description;
    expectSameUnetOutput(c, config, diffusers, 1024, false);
}

TEST(SingleFileSd, SdxlShapedFileRoundTripsAndNamesItsParts) {
    const json config = sdxlShaped();
    const WeightMap diffusers = test::randomUnet(config, 5);
    WeightMap all = test::unetToLdm(diffusers, config);
    ASSERT_TRUE(all.count("model.diffusion_model.label_emb.0.0.weight"));
    // SDXL's text encoders: CLIP-L with transformers keys, bigG in OpenCLIP's; its VAE.
    const WeightMap clip = test::openWeights(dataPath("golden/clip/model.safetensors"));
    for (const auto& kv : clip) all["conditioner.embedders.0.transformer." + kv.first] = kv.second;
    addOpenClipSingleFileSd(all, clip, "conditioner.embedders.1.model.", 16, 2);
    const test::ScopedDir tmp("sdxl-single");
    const std::string path = writeWithSd15Vae(all, tmp.path, "sdxl.safetensors");

    const SingleFileContents f = readSingleFile(path);
    EXPECT_EQ(test::slotsOf(f),
              (std::vector<std::string>{"unet UNet2DConditionModel", "vae AutoencoderKL",
                                        "text_encoder CLIPTextModel",
                                        "text_encoder_2 CLIPTextModelWithProjection"}));
    const ConvertedComponent& c = expectUnetRoundTrip(f, diffusers, config);
    EXPECT_EQ(c.config["transformer_layers_per_block"], json({1, 1, 2}));
    EXPECT_NE(c.description.find(": SDXL base, "), std::string::npos) << c.description;
    EXPECT_EQ(test::componentIn(f, "vae").config["scaling_factor"], 0.13025);
    expectSameUnetOutput(c, config, diffusers, 2048, true);

    const InspectReport r = inspectPath(path);
    EXPECT_EQ(r.singleFile.headline.rfind("SDXL base, SGM layout: UNet ", 0), 0u)
        << r.singleFile.headline;
    EXPECT_NE(r.singleFile.headline.find(", two text encoders, VAE; fp32 weights"),
              std::string::npos)
        << r.singleFile.headline;

    // Without its second text encoder: converted, and the UNet says what to add.
    WeightMap partial = test::openWeights(path);
    for (auto it = partial.begin(); it != partial.end();)
        it =
            it->first.rfind("conditioner.embedders.1.", 0) == 0 ? partial.erase(it) : std::next(it);
    const SingleFileContents p = convertSingleFile(partial, "sdxl-no-bigG.safetensors");
    EXPECT_EQ(p.components.size(), 3u);
    EXPECT_NE(test::componentIn(p, "unet").description.find(
                  "no second text encoder (conditioner.embedders.1.model.*): give one with "
                  "--text-encoder-2"),
              std::string::npos);
    EXPECT_NE(singleFileHeadline(p, partial).find("CLIP text encoder (the second is missing)"),
              std::string::npos)
        << singleFileHeadline(p, partial);
}

TEST(SingleFileSd, OtherWidthsAndLayersConvert) {
    const json config = unetConfigSingleFileSd(
        {{"block_out_channels", {64, 128, 128}},
         {"layers_per_block", 2},
         {"down_block_types", {"CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"}},
         {"up_block_types", {"UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"}},
         {"cross_attention_dim", 48}});
    const WeightMap diffusers = test::randomUnet(config, 7);
    const WeightMap ldm = test::unetToLdm(diffusers, config);
    const SingleFileContents f = convertSingleFile(ldm, "wide.safetensors");
    ASSERT_EQ(f.components.size(), 1u);
    test::expectSameWeights(f.components[0].weights, diffusers);
    expectUnetArchitecture(f.components[0].config, config);
    expectSameUnetOutput(f.components[0], config, diffusers, 48, false);
}

// diffusers' configs of the released UNets (architecture fields).
json sd15Config() {
    return unetConfigSingleFileSd(
        {{"block_out_channels", {320, 640, 1280, 1280}},
         {"layers_per_block", 2},
         {"down_block_types",
          {"CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"}},
         {"up_block_types",
          {"UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"}},
         {"cross_attention_dim", 768}});
}

TEST(SingleFileSd, RealSizeUnetsGetDiffusersConfigs) {
    json sd21 = sd15Config();
    sd21.update({{"cross_attention_dim", 1024},
                 {"attention_head_dim", {5, 10, 20, 20}},
                 {"use_linear_projection", true},
                 {"upcast_attention", true}});
    json sd15Inpaint = sd15Config();
    sd15Inpaint["in_channels"] = 9;
    const json sdxl = unetConfigSingleFileSd(
        {{"block_out_channels", {320, 640, 1280}},
         {"layers_per_block", 2},
         {"down_block_types", {"DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"}},
         {"up_block_types", {"CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"}},
         {"cross_attention_dim", 2048},
         {"transformer_layers_per_block", {1, 2, 10}},
         {"attention_head_dim", {5, 10, 20}},
         {"use_linear_projection", true},
         {"addition_embed_type", "text_time"},
         {"addition_time_embed_dim", 256},
         {"projection_class_embeddings_input_dim", 2816}});
    json refiner = unetConfigSingleFileSd(
        {{"block_out_channels", {384, 768, 1536, 1536}},
         {"layers_per_block", 2},
         {"down_block_types",
          {"DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "DownBlock2D"}},
         {"up_block_types", {"UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"}},
         {"cross_attention_dim", 1280},
         {"transformer_layers_per_block", 4},
         {"attention_head_dim", {6, 12, 24, 24}},
         {"use_linear_projection", true},
         {"addition_embed_type", "text_time"},
         {"addition_time_embed_dim", 256},
         {"projection_class_embeddings_input_dim", 2560}});
    const struct {
        const char* name;
        json config;
        int sampleSize;
        double billions;
    } cases[] = {{"SD 1.x", sd15Config(), 64, 0.86},
                 {"SD 1.x inpainting", sd15Inpaint, 64, 0.86},
                 {"SD 2.x", sd21, 96, 0.87},
                 {"SDXL base", sdxl, 128, 2.57},
                 {"SDXL refiner", refiner, 128, 2.26}};
    for (const auto& k : cases) {
        const WeightMap ldm =
            test::unetToLdm(test::unetShapes(k.config, torch::kFloat16), k.config);
        EXPECT_EQ(sdModelName(ldm), k.name);
        const SingleFileContents f = convertSingleFile(ldm, "real.safetensors");
        ASSERT_EQ(f.components.size(), 1u) << k.name;
        const ConvertedComponent& c = f.components[0];
        expectUnetArchitecture(c.config, k.config);
        EXPECT_EQ(c.config["sample_size"], k.sampleSize) << k.name;
        int64_t n = 0;
        for (const auto& kv : c.weights) n += kv.second.numel();
        EXPECT_NEAR(n / 1e9, k.billions, 0.005) << k.name;
        char head[160];
        std::snprintf(head, sizeof head,
                      "UNet2DConditionModel, LDM layout under model.diffusion_model.: %s", k.name);
        EXPECT_EQ(c.description.rfind(head, 0), 0u) << c.description;
        EXPECT_NE(c.description.find(", fp16; assumed: "), std::string::npos) << c.description;
        std::printf("  %s\n  %s\n", c.description.c_str(), singleFileHeadline(f, ldm).c_str());
        if (k.sampleSize == 64 && k.config["in_channels"] == 4)
            EXPECT_EQ(singleFileHeadline(f, ldm),
                      "SD 1.x, LDM layout: UNet 0.86 B, no text encoder, no VAE; fp16 weights");
    }
}

TEST(SingleFileSd, ModelNamesComeFromTheUnetsShapes) {
    // Marker tensors only (expanded: no memory), as infer_diffusers_model_type reads them.
    auto file = [](int64_t in, int64_t context, bool linear, int64_t adm) {
        auto shaped = [](std::vector<int64_t> s) { return torch::zeros({1}).expand(s); };
        const std::string p = "model.diffusion_model.";
        WeightMap w{
            {p + "input_blocks.0.0.weight", shaped({320, in, 3, 3})},
            {p + "time_embed.0.weight", shaped({1280, 320})},
            {p + "middle_block.1.transformer_blocks.0.attn2.to_k.weight", shaped({1280, context})},
            {p + "middle_block.1.proj_in.weight",
             linear ? shaped({1280, 1280}) : shaped({1280, 1280, 1, 1})}};
        if (adm) w[p + "label_emb.0.0.weight"] = shaped({1280, adm});
        return w;
    };
    EXPECT_EQ(sdModelName(file(4, 768, false, 0)), "SD 1.x");
    EXPECT_EQ(sdModelName(file(9, 768, false, 0)), "SD 1.x inpainting");
    EXPECT_EQ(sdModelName(file(8, 768, false, 0)), "SD 1.x InstructPix2Pix-style");
    EXPECT_EQ(sdModelName(file(4, 1024, true, 0)), "SD 2.x");
    EXPECT_EQ(sdModelName(file(9, 1024, true, 0)), "SD 2.x inpainting");
    EXPECT_EQ(sdModelName(file(4, 2048, true, 2816)), "SDXL base");
    EXPECT_EQ(sdModelName(file(9, 2048, true, 2816)), "SDXL base inpainting");
    EXPECT_EQ(sdModelName(file(4, 1280, true, 2560)), "SDXL refiner");
    EXPECT_EQ(sdModelName(file(4, 32, false, 0)), "SD 1.x-style");
    EXPECT_EQ(sdModelName(file(4, 32, true, 0)), "SD 2.x-style");
    EXPECT_EQ(sdModelName(WeightMap{}), "");
}

TEST(SingleFileSd, OpenClipSd2FormKeepsAllButTheLastLayer) {
    const WeightMap golden = test::openWeights(dataPath("golden/clip/model.safetensors"));
    json goldenConfig = test::readJsonAt(dataPath("golden/clip/config.json"));
    torch::manual_seed(9);
    const WeightMap file = test::clipToOpenClip(golden, 5, "cond_stage_model.model.",
                                                torch::randn({32, 32}), /*extraLayers=*/1);
    ASSERT_TRUE(file.count("cond_stage_model.model.transformer.resblocks.5.attn.in_proj_weight"));
    EXPECT_EQ(detectSingleFile(file),
              std::vector<std::string>{
                  "OpenCLIP text encoder (SD 2.x / SDXL layout) (cond_stage_model.model.*)"});
    const SingleFileContents f = convertSingleFile(file, "sd2-te.safetensors");
    ASSERT_EQ(f.components.size(), 1u);
    EXPECT_TRUE(f.ignored.empty());  // logit_scale is taken and dropped
    const ConvertedComponent& c = f.components[0];
    EXPECT_EQ(c.slot, "text_encoder");
    EXPECT_EQ(c.className, "CLIPTextModel");
    EXPECT_EQ(c.config["num_hidden_layers"], 5);
    EXPECT_EQ(c.config["hidden_act"], "gelu");
    for (const char* k : {"vocab_size", "hidden_size", "intermediate_size", "num_attention_heads",
                          "max_position_embeddings", "eos_token_id"})
        EXPECT_EQ(c.config[k], goldenConfig[k]) << k;
    test::expectSameWeights(c.weights, golden);  // in_proj split back; layer 5, projection gone
    EXPECT_EQ(c.weights.at("text_model.encoder.layers.2.self_attn.q_proj.weight").data_ptr(),
              file.at("cond_stage_model.model.transformer.resblocks.2.attn.in_proj_weight")
                  .data_ptr());  // a view
    EXPECT_EQ(c.description,
              "OpenCLIP text encoder (CLIPTextModel), width 32 under cond_stage_model.model.: SD "
              "2.x form, 5 of 6 layers (SD 2.x conditions on the penultimate layer: as in "
              "diffusers' SD 2 text_encoder config the last resblock and text_projection are left "
              "out), width 32, fp32; assumed: 4 heads (test-sized width), gelu, argmax pooling");

    // It runs as the same weights do under transformers' CLIPTextModel with exact GELU.
    goldenConfig["hidden_act"] = "gelu";
    const ConvertedComponent direct{"text_encoder", "CLIPTextModel", goldenConfig, golden, ""};
    const NamedTensors in{{"in.input_ids", torch::tensor({{0, 17, 230, 999, 2}}, torch::kInt64)}};
    EXPECT_TRUE(torch::equal(test::runConverted(c, in).at("out.last_hidden_state"),
                             test::runConverted(direct, in).at("out.last_hidden_state")));
}

TEST(SingleFileSd, OpenClipSdxlFormKeepsEveryLayerAndTransposesTheProjection) {
    const WeightMap golden = test::openWeights(dataPath("golden/clip/model.safetensors"));
    torch::manual_seed(10);
    const torch::Tensor projection = torch::randn({16, 32});  // transformers' [proj, width]
    for (const std::string prefix :
         {"conditioner.embedders.1.model.", "conditioner.embedders.0.model."}) {
        const SingleFileContents f = convertSingleFile(
            test::clipToOpenClip(golden, 5, prefix, projection), "xl-te.safetensors");
        ASSERT_EQ(f.components.size(), 1u);
        const ConvertedComponent& c = f.components[0];
        EXPECT_EQ(c.slot, "text_encoder_2") << prefix;
        EXPECT_EQ(c.className, "CLIPTextModelWithProjection");
        EXPECT_EQ(c.config["num_hidden_layers"], 5);
        EXPECT_EQ(c.config["projection_dim"], 16);
        WeightMap want = golden;
        want["text_projection.weight"] = projection;
        test::expectSameWeights(c.weights, want);
        const NamedTensors out =
            test::runConverted(c, {{"in.input_ids", torch::tensor({{0, 5, 2}}, torch::kInt64)}});
        EXPECT_EQ(out.at("out.text_embeds").sizes(), (std::vector<int64_t>{1, 16}));
    }
    // SDXL's pooled embedding needs the projection: its absence is named.
    WeightMap noProjection =
        test::clipToOpenClip(golden, 5, "conditioner.embedders.1.model.", torch::Tensor());
    const std::string m =
        test::errorOf<WeightError>([&] { convertSingleFile(noProjection, "xl.safetensors"); });
    EXPECT_NE(m.find("missing tensor 'conditioner.embedders.1.model.text_projection'"),
              std::string::npos)
        << m;
}

TEST(SingleFileSd, InspectNamesTheCheckpointInOneLine) {
    const std::string path = dataPath(kSd15);
    const InspectReport r = inspectPath(path);
    EXPECT_EQ(r.singleFile.headline,
              "SD 1.x-style, LDM layout: UNet 2.45 M, CLIP text encoder, VAE; fp32 weights");
    EXPECT_NE(formatReport(r).find("\nSingle file: SD 1.x-style, LDM layout: UNet 2.45 M"),
              std::string::npos);
    EXPECT_EQ(toJson(r)["single_file"]["headline"], r.singleFile.headline);

    // With LDM's EMA copies and schedule buffers beside the weights: left out, and said so.
    WeightMap all = test::openWeights(path);
    all["model_ema.decay"] = torch::tensor(0.9999f);
    all["model_ema.diffusion_modelinput_blocks00weight"] =
        all.at("model.diffusion_model.input_blocks.0.0.weight");
    for (const char* buffer : {"alphas_cumprod", "betas", "posterior_variance"})
        all[buffer] = torch::ones({1000});
    all["cond_stage_model.transformer.text_model.embeddings.position_ids"] =
        torch::arange(77).unsqueeze(0);  // an index buffer the CLIP conversion drops
    const SingleFileContents f = convertSingleFile(all, "ema.safetensors");
    EXPECT_EQ(f.components.size(), 3u);
    EXPECT_EQ(f.ignored, (std::vector<std::string>{"alphas_cumprod", "betas", "model_ema.decay",
                                                   "model_ema.diffusion_modelinput_blocks00weight",
                                                   "posterior_variance"}));
    EXPECT_EQ(singleFileHeadline(f, all),
              "SD 1.x-style, LDM layout: UNet 2.45 M, CLIP text encoder, VAE; fp32 weights, EMA "
              "weights left out");
}

TEST(SingleFileSd, BadFilesNameTheKey) {
    const WeightMap sd = test::openWeights(dataPath(kSd15));
    const std::string path = "sd.safetensors";

    WeightMap missing = sd;  // pruned: up block 0's upsampler gone
    missing.erase("model.diffusion_model.output_blocks.2.1.conv.weight");
    std::string m = test::errorOf<WeightError>([&] { convertSingleFile(missing, path); });
    EXPECT_EQ(m,
              "sd.safetensors: Stable Diffusion UNet (LDM layout): missing tensor "
              "'model.diffusion_model.output_blocks.2.1.conv.weight' (diffusers' "
              "up_blocks.0.upsamplers.0.conv.weight)");

    WeightMap unknown = sd;
    unknown["model.diffusion_model.input_blocks.1.2.weight"] = torch::zeros({4});
    m = test::errorOf<WeightError>([&] { convertSingleFile(unknown, path); });
    EXPECT_NE(m.find("this layout does not know: 'model.diffusion_model.input_blocks.1.2.weight'"),
              std::string::npos)
        << m;

    // A middle block of two resnets (diffusers' UNetMidBlock2D): named, not converted wrongly.
    WeightMap noMidAttention;
    const std::string mid1 = "model.diffusion_model.middle_block.1.";
    const std::string mid2 = "model.diffusion_model.middle_block.2.";
    for (const auto& [key, t] : sd) {
        if (key.rfind(mid1, 0) == 0) continue;
        noMidAttention[key.rfind(mid2, 0) == 0 ? mid1 + key.substr(mid2.size()) : key] = t;
    }
    m = test::errorOf<WeightError>([&] { convertSingleFile(noMidAttention, path); });
    EXPECT_NE(m.find("the middle block is not resnet, attention, resnet "
                     "('model.diffusion_model.middle_block.1.proj_in.weight' missing)"),
              std::string::npos)
        << m;

    // EMA only: LDM's model_ema.* copies (keys without dots) and no model.diffusion_model.*.
    WeightMap emaOnly;
    for (const auto& [key, t] : sd) {
        if (key.rfind("model.diffusion_model.", 0) != 0) {
            emaOnly[key] = t;
            continue;
        }
        std::string flat = key.substr(std::string("model.").size());
        flat.erase(std::remove(flat.begin(), flat.end(), '.'), flat.end());
        emaOnly["model_ema." + flat] = t;
    }
    m = test::errorOf<WeightError>([&] { convertSingleFile(emaOnly, path); });
    EXPECT_NE(m.find("sd.safetensors: Stable Diffusion UNet EMA copies: missing tensor "
                     "'model.diffusion_model.input_blocks.0.0.weight' (the UNet's conv_in)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("only as LDM's EMA copies (684 model_ema.* tensors"), std::string::npos) << m;
}

TEST(SingleFileSd, RunModuleTakesAComponentOfTheCheckpoint) {
    const test::ScopedDir tmp("sd-run-module");
    const std::string io = dataPath(kSd15Io);
    const std::vector<std::pair<std::string, std::string>> parts{{"unet", "out.unet.sample"},
                                                                 {"vae", "out.vae.decode.sample"}};
    for (const auto& [part, key] : parts) {
        const std::string out = tmp.path + "/" + part + ".safetensors";
        int status = -1;
        const std::string text =
            test::runCli("run-module --model " + dataPath(kSd15) + " --component " + part +
                             " --inputs " + io + " --output " + out,
                         status);
        ASSERT_EQ(status, 0) << text;
        const NamedTensors got = test::openTensors(out);
        ASSERT_EQ(got.size(), 1u) << text;
        const double err = test::relErr(got.at(key), test::openTensors(io).at(key));
        std::printf("  run-module --component %s rel err %.3e\n", part.c_str(), err);
        EXPECT_LE(err, 1e-4) << part;
    }
}

}  // namespace
}  // namespace hs
