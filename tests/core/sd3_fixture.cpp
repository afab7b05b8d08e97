#include "sd3_fixture.h"

#include <array>
#include <filesystem>
#include <stdexcept>

#include "family_suites.h"
#include "flux1_fixture.h"
#include "families/sd3/sd3_layers.h"
#include "families/sd3/sd3_transformer.h"
#include "pipeline_fixture.h"
#include "test_util.h"

namespace hs::test {

namespace fs = std::filesystem;

namespace {

constexpr int kLayersSd3Fixture = 2;

nlohmann::json clipConfigSd3Fixture(const char* act) {
    nlohmann::json j{{"architectures", {"CLIPTextModelWithProjection"}},
                     {"model_type", "clip_text_model"},
                     {"hidden_size", 12},
                     {"intermediate_size", 24},
                     {"num_hidden_layers", 2},
                     {"num_attention_heads", 4},
                     {"projection_dim", 24},
                     {"max_position_embeddings", 77},
                     {"hidden_act", act},
                     {"layer_norm_eps", 1e-5}};
    j.update(demoTokenIds());  // the demo tokenizer is copied beside it
    j["pad_token_id"] = j["eos_token_id"];
    return j;
}

// SD3's VAE in small: 16 latent channels, no quant convs, its scaling and shift.
nlohmann::json vaeConfigSd3Fixture() {
    return smallAutoencoderKlConfig({{"use_quant_conv", false},
                                     {"use_post_quant_conv", false},
                                     {"scaling_factor", 1.5305},
                                     {"shift_factor", 0.0609}});
}

// (scale, shift) halves to (shift, scale), and back.
torch::Tensor swapHalvesSd3Fixture(const torch::Tensor& t) {
    const auto halves = t.chunk(2, 0);
    return torch::cat({halves[1], halves[0]}, 0);
}

void copyFolderSd3Fixture(const std::string& from, const std::string& to) {
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// Every writer into the two residual streams (see writeTinySd3); the last block
// (context_pre_only) has no to_add_out and no ff_context, the dual-attention block an attn2.
void scaleResidualWritersSd3Fixture(WeightMap& dit, double c, double mlpGain) {
    // pos_embed (3) and context_embedder (2); 8 a block, 4 in the last, 2 more in block 0's attn2.
    scaleStreamWriters(
        dit,
        R"(pos_embed\.pos_embed|(pos_embed\.proj|context_embedder|transformer_blocks\.\d+\.(attn\.to_out\.0|attn\.to_add_out|attn2\.to_out\.0|ff\.net\.2|ff_context\.net\.2))\.(weight|bias))",
        [](const std::string& key) {
            return key.find("ff.net.2.") != std::string::npos ||
                   key.find("ff_context.net.2.") != std::string::npos;
        },
        c, mlpGain, 5 + 8 * (kLayersSd3Fixture - 1) + 4 + 2);
}

}  // namespace

nlohmann::json sd3TransformerConfigFixture() {
    return {{"_class_name", "SD3Transformer2DModel"},
            {"sample_size", 8},
            {"patch_size", 2},
            {"in_channels", 16},
            {"out_channels", 16},
            {"num_layers", kLayersSd3Fixture},
            {"attention_head_dim", 8},
            {"num_attention_heads", 4},
            {"joint_attention_dim", 32},
            {"caption_projection_dim", 32},
            {"pooled_projection_dim", 48},
            {"pos_embed_max_size", 16},
            {"dual_attention_layers", {0}},
            {"qk_norm", "rms_norm"}};
}

WeightMap sd3ToStability(const WeightMap& d, int layers, std::set<std::string>* unused) {
    WeightMap o;
    std::set<std::string> used;
    auto at = [&](const std::string& key) {
        used.insert(key);
        return d.at(key);
    };
    auto pair = [&](const std::string& from, const std::string& to) {
        for (const char* p : {".weight", ".bias"})
            if (d.count(from + p)) o[to + p] = at(from + p);
    };
    auto qkv = [&](const std::string& from, const std::array<const char*, 3>& names,
                   const std::string& to) {
        for (const char* p : {".weight", ".bias"})
            o[to + p] = torch::cat(
                {at(from + names[0] + p), at(from + names[1] + p), at(from + names[2] + p)});
    };
    // AdaLayerNormContinuous's linear holds (scale, shift), Stability's adaLN (shift, scale).
    auto swapped = [&](const std::string& from, const std::string& to) {
        for (const char* p : {".weight", ".bias"}) o[to + p] = swapHalvesSd3Fixture(at(from + p));
    };
    o["pos_embed"] = at("pos_embed.pos_embed");
    pair("pos_embed.proj", "x_embedder.proj");
    pair("context_embedder", "context_embedder");
    pair("time_text_embed.timestep_embedder.linear_1", "t_embedder.mlp.0");
    pair("time_text_embed.timestep_embedder.linear_2", "t_embedder.mlp.2");
    pair("time_text_embed.text_embedder.linear_1", "y_embedder.mlp.0");
    pair("time_text_embed.text_embedder.linear_2", "y_embedder.mlp.2");
    for (int i = 0; i < layers; ++i) {
        const std::string b = "transformer_blocks." + std::to_string(i) + ".",
                          j = "joint_blocks." + std::to_string(i) + ".";
        qkv(b + "attn.", {"to_q", "to_k", "to_v"}, j + "x_block.attn.qkv");
        pair(b + "attn.to_out.0", j + "x_block.attn.proj");
        pair(b + "attn.norm_q", j + "x_block.attn.ln_q");
        pair(b + "attn.norm_k", j + "x_block.attn.ln_k");
        qkv(b + "attn.", {"add_q_proj", "add_k_proj", "add_v_proj"}, j + "context_block.attn.qkv");
        pair(b + "attn.norm_added_q", j + "context_block.attn.ln_q");
        pair(b + "attn.norm_added_k", j + "context_block.attn.ln_k");
        pair(b + "norm1.linear", j + "x_block.adaLN_modulation.1");
        pair(b + "ff.net.0.proj", j + "x_block.mlp.fc1");
        pair(b + "ff.net.2", j + "x_block.mlp.fc2");
        if (d.count(b + "attn2.to_q.weight")) {
            qkv(b + "attn2.", {"to_q", "to_k", "to_v"}, j + "x_block.attn2.qkv");
            pair(b + "attn2.to_out.0", j + "x_block.attn2.proj");
            pair(b + "attn2.norm_q", j + "x_block.attn2.ln_q");
            pair(b + "attn2.norm_k", j + "x_block.attn2.ln_k");
        }
        if (i + 1 == layers) {  // context_pre_only: the context's adaLN is a continuous one
            swapped(b + "norm1_context.linear", j + "context_block.adaLN_modulation.1");
        } else {
            pair(b + "norm1_context.linear", j + "context_block.adaLN_modulation.1");
            pair(b + "attn.to_add_out", j + "context_block.attn.proj");
            pair(b + "ff_context.net.0.proj", j + "context_block.mlp.fc1");
            pair(b + "ff_context.net.2", j + "context_block.mlp.fc2");
        }
    }
    pair("proj_out", "final_layer.linear");
    swapped("norm_out.linear", "final_layer.adaLN_modulation.1");
    if (unused)
        for (const auto& kv : d)
            if (!used.count(kv.first)) unused->insert(kv.first);
    return o;
}

std::shared_ptr<Component> loadSd3Transformer(const nlohmann::json& config,
                                              const WeightMap& weights, ProbeContext& probes,
                                              LoadMode mode) {
    return loadComponent(*FamilyRegistry::global().require("SD3Transformer2DModel", "test"),
                         {"test", config, weights}, probes.policy(), "transformer", mode);
}

nlohmann::json otherSd3Config() {
    nlohmann::json j = sd3TransformerConfigFixture();
    j.update(nlohmann::json::parse(R"({
        "num_layers": 3, "attention_head_dim": 12, "num_attention_heads": 2,
        "joint_attention_dim": 20, "caption_projection_dim": 24, "pooled_projection_dim": 18,
        "pos_embed_max_size": 8, "dual_attention_layers": [0, 1]})"));
    return j;
}

WeightMap randomSd3Weights(const nlohmann::json& config, uint64_t seed) {
    const SD3Config c = SD3Config::fromJson(config);
    WeightMap w = randomCheckpoint(
        seed, [&] { return SD3Transformer(c); },
        [](const std::string& k) { return k.find(".norm_") != std::string::npos; });
    w["pos_embed.pos_embed"] =
        sd3SincosPosEmbed(c.innerDim(), c.posEmbedMaxSize, c.baseSize()).unsqueeze(0);
    return w;
}

NamedTensors otherSd3Inputs() {
    torch::manual_seed(9);
    return {{"in.hidden_states", torch::randn({2, 16, 12, 10})},
            {"in.encoder_hidden_states", torch::randn({2, 5, 20})},
            {"in.pooled_projections", torch::randn({2, 18})},
            {"in.timestep", torch::tensor({800.f, 350.f})},
            {"out.sample", torch::zeros({1})}};  // not an input: ignored
}

ModelFiles Sd3Files::comfySet() const {
    ModelFiles m;
    m.vae = ae;
    m.textEncoder = clipL;
    m.textEncoder2 = clipG;
    m.textEncoder3 = t5;
    return m;
}

Sd3Files writeTinySd3(const std::string& root, double residualScale, double mlpGain) {
    Sd3Files f;
    f.folder = root + "/folder";
    const auto tc = sd3TransformerConfigFixture();
    WeightMap transformer = randomWeightsOf(tc, "SD3Transformer2DModel", 11);
    if (residualScale != 1.0 || mlpGain != 1.0)
        scaleResidualWritersSd3Fixture(transformer, residualScale, mlpGain);
    const WeightMap clipL =
        randomWeightsOf(clipConfigSd3Fixture("quick_gelu"), "CLIPTextModelWithProjection", 12);
    // CLIP-G is OpenCLIP (gelu); a file's converter knows it by its width (1280), which this
    // tiny one does not have, so here it is quick_gelu like CLIP-L.
    const WeightMap clipG =
        randomWeightsOf(clipConfigSd3Fixture("quick_gelu"), "CLIPTextModelWithProjection", 13);
    const WeightMap t5 = randomWeightsOf(tinyT5Config(), "T5EncoderModel", 14);
    const WeightMap vae = randomWeightsOf(vaeConfigSd3Fixture(), "AutoencoderKL", 15);

    writeJsonFile(f.folder + "/model_index.json",
                  {{"_class_name", "StableDiffusion3Pipeline"},
                   {"scheduler", {"diffusers", "FlowMatchEulerDiscreteScheduler"}},
                   {"text_encoder", {"transformers", "CLIPTextModelWithProjection"}},
                   {"text_encoder_2", {"transformers", "CLIPTextModelWithProjection"}},
                   {"text_encoder_3", {"transformers", "T5EncoderModel"}},
                   {"tokenizer", {"transformers", "CLIPTokenizer"}},
                   {"tokenizer_2", {"transformers", "CLIPTokenizer"}},
                   {"tokenizer_3", {"transformers", "T5TokenizerFast"}},
                   {"transformer", {"diffusers", "SD3Transformer2DModel"}},
                   {"vae", {"diffusers", "AutoencoderKL"}}});
    writeJsonFile(f.folder + "/transformer/config.json", tc);
    writeWeightsFile(f.folder + "/transformer/diffusion_pytorch_model.safetensors", transformer);
    writeJsonFile(f.folder + "/text_encoder/config.json", clipConfigSd3Fixture("quick_gelu"));
    writeWeightsFile(f.folder + "/text_encoder/model.safetensors", clipL);
    writeJsonFile(f.folder + "/text_encoder_2/config.json", clipConfigSd3Fixture("quick_gelu"));
    writeWeightsFile(f.folder + "/text_encoder_2/model.safetensors", clipG);
    writeJsonFile(f.folder + "/text_encoder_3/config.json", tinyT5Config());
    writeWeightsFile(f.folder + "/text_encoder_3/model.safetensors", t5);
    writeJsonFile(f.folder + "/vae/config.json", vaeConfigSd3Fixture());
    writeWeightsFile(f.folder + "/vae/diffusion_pytorch_model.safetensors", vae);
    writeJsonFile(f.folder + "/scheduler/scheduler_config.json",
                  {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
                   {"num_train_timesteps", 1000},
                   {"shift", 3.0}});
    const std::string clipTokenizer = dataPath("../../resources/demo-model/tokenizer");
    copyFolderSd3Fixture(clipTokenizer, f.folder + "/tokenizer");
    copyFolderSd3Fixture(clipTokenizer, f.folder + "/tokenizer_2");
    copyFolderSd3Fixture(dataPath("flux1_tiny/tokenizer_2"), f.folder + "/tokenizer_3");

    // ComfyUI's set, the tokenizers beside the files.
    const std::string files = root + "/files";
    fs::create_directories(files);
    f.dit = files + "/sd3.5-tiny.safetensors";
    f.ae = files + "/ae.safetensors";
    f.clipL = files + "/clip_l.safetensors";
    f.clipG = files + "/clip_g.safetensors";
    f.t5 = files + "/t5xxl_tiny.safetensors";
    writeWeightsFile(f.dit, sd3ToStability(transformer, kLayersSd3Fixture),
                     "model.diffusion_model.");
    writeWeightsFile(f.ae, vaeToLdm(vae, 2));
    writeWeightsFile(f.clipL, clipL);
    writeWeightsFile(f.clipG, clipG);
    writeWeightsFile(f.t5, t5);
    for (const char* t : {"tokenizer", "tokenizer_2", "tokenizer_3"})
        copyFolderSd3Fixture(f.folder + "/" + t, files + "/" + t);
    return f;
}

}  // namespace hs::test
