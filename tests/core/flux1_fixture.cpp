#include "flux1_fixture.h"

#include <filesystem>
#include <fstream>
#include <regex>

#include "demo/demo_config.h"
#include "io/safetensors.h"
#include "models/common/layers.h"
#include "models/registry.h"
#include "test_util.h"

namespace hs::test {

namespace fs = std::filesystem;

// Fused q/k/v, single blocks' linear1 = [q; k; v; mlp], the final modulation back in
// shift-then-scale order.
WeightMap fluxToBfl(const WeightMap& d, int doubles, int singles) {
    WeightMap b;
    auto pair = [&](const std::string& from, const std::string& to) {
        b[to + ".weight"] = d.at(from + ".weight");
        b[to + ".bias"] = d.at(from + ".bias");
    };
    auto fused = [&](std::vector<std::string> from, const std::string& to) {
        for (const char* p : {"weight", "bias"}) {
            std::vector<torch::Tensor> parts;
            for (const auto& f : from) parts.push_back(d.at(f + "." + p));
            b[to + "." + p] = torch::cat(parts, 0);
        }
    };
    for (const char* e : {"time", "vector", "guidance"}) {
        const std::string from =
            std::string("time_text_embed.") + (e == std::string("time")     ? "timestep_embedder"
                                               : e == std::string("vector") ? "text_embedder"
                                                                            : "guidance_embedder");
        if (!d.count(from + ".linear_1.weight")) continue;
        pair(from + ".linear_1", std::string(e) + "_in.in_layer");
        pair(from + ".linear_2", std::string(e) + "_in.out_layer");
    }
    pair("context_embedder", "txt_in");
    pair("x_embedder", "img_in");
    for (int i = 0; i < doubles; ++i) {
        const std::string s = "transformer_blocks." + std::to_string(i) + ".";
        const std::string t = "double_blocks." + std::to_string(i) + ".";
        fused({s + "attn.to_q", s + "attn.to_k", s + "attn.to_v"}, t + "img_attn.qkv");
        fused({s + "attn.add_q_proj", s + "attn.add_k_proj", s + "attn.add_v_proj"},
              t + "txt_attn.qkv");
        b[t + "img_attn.norm.query_norm.scale"] = d.at(s + "attn.norm_q.weight");
        b[t + "img_attn.norm.key_norm.scale"] = d.at(s + "attn.norm_k.weight");
        b[t + "txt_attn.norm.query_norm.scale"] = d.at(s + "attn.norm_added_q.weight");
        b[t + "txt_attn.norm.key_norm.scale"] = d.at(s + "attn.norm_added_k.weight");
        pair(s + "attn.to_out.0", t + "img_attn.proj");
        pair(s + "attn.to_add_out", t + "txt_attn.proj");
        pair(s + "ff.net.0.proj", t + "img_mlp.0");
        pair(s + "ff.net.2", t + "img_mlp.2");
        pair(s + "ff_context.net.0.proj", t + "txt_mlp.0");
        pair(s + "ff_context.net.2", t + "txt_mlp.2");
        pair(s + "norm1.linear", t + "img_mod.lin");
        pair(s + "norm1_context.linear", t + "txt_mod.lin");
    }
    for (int i = 0; i < singles; ++i) {
        const std::string s = "single_transformer_blocks." + std::to_string(i) + ".";
        const std::string t = "single_blocks." + std::to_string(i) + ".";
        fused({s + "attn.to_q", s + "attn.to_k", s + "attn.to_v", s + "proj_mlp"}, t + "linear1");
        pair(s + "proj_out", t + "linear2");
        pair(s + "norm.linear", t + "modulation.lin");
        b[t + "norm.query_norm.scale"] = d.at(s + "attn.norm_q.weight");
        b[t + "norm.key_norm.scale"] = d.at(s + "attn.norm_k.weight");
    }
    pair("proj_out", "final_layer.linear");
    for (const char* p : {"weight", "bias"}) {
        auto halves = d.at(std::string("norm_out.linear.") + p).chunk(2, 0);  // scale, shift
        b[std::string("final_layer.adaLN_modulation.1.") + p] = torch::cat({halves[1], halves[0]});
    }
    return b;
}

// Regular expressions over diffusers' names; attention linears stored as 1x1 convolutions as
// LDM does.
WeightMap vaeToLdm(const WeightMap& d, int levels) {
    const std::vector<std::pair<std::regex, std::string>> rules{
        {std::regex(R"(^(encoder|decoder)\.conv_norm_out\.)"), "$1.norm_out."},
        {std::regex(R"(^encoder\.down_blocks\.(\d+)\.resnets\.)"), "encoder.down.$1.block."},
        {std::regex(R"(^encoder\.down_blocks\.(\d+)\.downsamplers\.0\.)"),
         "encoder.down.$1.downsample."},
        {std::regex(R"(\.mid_block\.resnets\.0\.)"), ".mid.block_1."},
        {std::regex(R"(\.mid_block\.resnets\.1\.)"), ".mid.block_2."},
        {std::regex(R"(\.mid_block\.attentions\.0\.group_norm\.)"), ".mid.attn_1.norm."},
        {std::regex(R"(\.mid_block\.attentions\.0\.to_([qkv])\.)"), ".mid.attn_1.$1."},
        {std::regex(R"(\.mid_block\.attentions\.0\.to_out\.0\.)"), ".mid.attn_1.proj_out."},
        {std::regex(R"(\.conv_shortcut\.)"), ".nin_shortcut."}};
    const std::regex up(R"(^decoder\.up_blocks\.(\d+)\.(resnets|upsamplers\.0)\.)");
    WeightMap out;
    for (const auto& [key, t] : d) {
        std::string k = key;
        std::smatch m;
        if (std::regex_search(k, m, up)) {
            const int ldm = levels - 1 - std::stoi(m[1]);
            k = "decoder.up." + std::to_string(ldm) +
                (m[2] == "resnets" ? ".block." : ".upsample.") + m.suffix().str();
        }
        for (const auto& [re, to] : rules) k = std::regex_replace(k, re, to);
        const bool attn = k.find(".mid.attn_1.") != std::string::npos && t.dim() == 2;
        out[k] = attn ? t.reshape({t.size(0), t.size(1), 1, 1}) : t;
    }
    return out;
}

void writeSharded(const std::string& dir, const std::string& stem, const WeightMap& weights,
                  int count) {
    fs::create_directories(dir);
    std::vector<std::vector<std::pair<std::string, torch::Tensor>>> shards(count);
    nlohmann::json map = nlohmann::json::object();
    int i = 0;
    for (const auto& [key, t] : weights) {
        const int s = i++ * count / int(weights.size());
        char name[96];
        std::snprintf(name, sizeof name, "%s-%05d-of-%05d.safetensors", stem.c_str(), s + 1, count);
        shards[s].emplace_back(key, t);
        map[key] = name;
    }
    for (int s = 0; s < count; ++s) {
        char name[96];
        std::snprintf(name, sizeof name, "%s-%05d-of-%05d.safetensors", stem.c_str(), s + 1, count);
        writeSafetensors(dir + "/" + name, shards[s]);
    }
    std::ofstream(dir + "/" + stem + ".safetensors.index.json")
        << nlohmann::json{{"metadata", {{"total_size", 0}}}, {"weight_map", map}}.dump(2);
}

nlohmann::json smallFluxTransformerConfig(int doubles, int singles, int heads,
                                          const nlohmann::json& fields) {
    // The demo's transformer (2x2-packed 16-channel latents, no guidance), made small.
    nlohmann::json c = demo::transformerConfig();
    c["num_layers"] = doubles;
    c["num_single_layers"] = singles;
    c["num_attention_heads"] = heads;
    c["attention_head_dim"] = 16;  // the sum of axes_dims_rope
    c["axes_dims_rope"] = {4, 6, 6};
    c["joint_attention_dim"] = 24;    // T5's width
    c["pooled_projection_dim"] = 20;  // CLIP's width
    c.update(fields);
    return c;
}

NamedTensors smallFluxInputs() {
    torch::manual_seed(3);
    return {{"in.hidden_states", torch::randn({1, 6, 16})},
            {"in.encoder_hidden_states", torch::randn({1, 5, 24})},
            {"in.pooled_projections", torch::randn({1, 20})},
            {"in.timestep", torch::tensor({0.6f})},
            {"in.img_ids", torch::randint(0, 4, {6, 3}).to(torch::kFloat32)},
            {"in.txt_ids", torch::zeros({5, 3})}};
}

nlohmann::json smallAutoencoderKlConfig(const nlohmann::json& fields) {
    nlohmann::json c = {{"_class_name", "AutoencoderKL"},
                        {"in_channels", 3},
                        {"out_channels", 3},
                        {"down_block_types", {"DownEncoderBlock2D", "DownEncoderBlock2D"}},
                        {"up_block_types", {"UpDecoderBlock2D", "UpDecoderBlock2D"}},
                        {"block_out_channels", {32, 32}},
                        {"layers_per_block", 1},
                        {"act_fn", "silu"},
                        {"latent_channels", 16},
                        {"norm_num_groups", 32}};
    c.update(fields);
    return c;
}

// Random weights for `config` through its family, as a trainer starts.
WeightMap randomWeightsOf(const nlohmann::json& config, const std::string& className,
                          uint64_t seed) {
    torch::manual_seed(seed);
    const auto family = FamilyRegistry::global().require(className, "fixture");
    auto c = family->build(ComponentSource{"fixture", config, {}}, "fixture");
    nn::initialiseForTraining(c->module());
    WeightMap w;
    for (auto& kv : stateOf(c->module())) w.emplace(kv.first, kv.second.detach().clone());
    return w;
}

namespace {

// The sizes: CLIP as wide as the transformer's pooled projection, T5 as its joint attention
// width; the tokenizers' vocabularies fit the encoders' embeddings.
nlohmann::json transformerConfigFlux1Fixture(bool dev) {
    // Rotary axes {4, 4, 8}: what a BFL file of head dim 16 is read with.
    return smallFluxTransformerConfig(2, 2, 2,
                                      {{"in_channels", 64},
                                       {"joint_attention_dim", 32},
                                       {"pooled_projection_dim", 24},
                                       {"guidance_embeds", dev},
                                       {"axes_dims_rope", {4, 4, 8}}});
}

nlohmann::json clipConfigFlux1Fixture() {
    nlohmann::json j{{"architectures", {"CLIPTextModel"}},
                     {"model_type", "clip_text_model"},
                     {"hidden_size", 24},
                     {"intermediate_size", 48},
                     {"num_hidden_layers", 2},
                     {"num_attention_heads", 4},  // what a CLIP file of width 24 is read with
                     {"max_position_embeddings", 77},
                     {"hidden_act", "quick_gelu"},
                     {"layer_norm_eps", 1e-5}};
    j.update(test::demoTokenIds());  // the demo tokenizer is copied beside it
    j["pad_token_id"] = j["eos_token_id"];
    return j;
}

// FLUX's VAE shape in small: 16 latent channels, no quant convs, its scaling and shift (what
// the single-file converter assumes for a 16-channel ae.safetensors).
nlohmann::json vaeConfigFlux1Fixture() {
    return smallAutoencoderKlConfig({{"use_quant_conv", false},
                                     {"use_post_quant_conv", false},
                                     {"mid_block_add_attention", true},
                                     {"scaling_factor", 0.3611},
                                     {"shift_factor", 0.1159}});
}

nlohmann::json schedulerConfigFlux1Fixture(bool dev) {
    nlohmann::json c = nlohmann::json::parse(R"({
        "_class_name": "FlowMatchEulerDiscreteScheduler", "base_image_seq_len": 256,
        "base_shift": 0.5, "max_image_seq_len": 4096, "max_shift": 1.15,
        "num_train_timesteps": 1000})");
    // dev shifts with the image size, schnell not at all.
    c["shift"] = dev ? 3.0 : 1.0;
    c["use_dynamic_shifting"] = dev;
    return c;
}

void copyFolderFlux1Fixture(const std::string& from, const std::string& to) {
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

}  // namespace

nlohmann::json tinyT5Config() {
    return nlohmann::json::parse(R"({
        "architectures": ["T5EncoderModel"], "model_type": "t5", "vocab_size": 416,
        "d_model": 32, "d_kv": 8, "d_ff": 48, "num_heads": 4, "num_layers": 2,
        "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
        "feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu_new", "is_gated_act": true,
        "layer_norm_epsilon": 1e-6, "pad_token_id": 0, "eos_token_id": 1})");
}

Flux1Files writeTinyFlux1(const std::string& root, bool dev) {
    Flux1Files f;
    f.root = root;
    f.folder = root + "/folder";
    const auto tc = transformerConfigFlux1Fixture(dev);
    const WeightMap transformer = randomWeightsOf(tc, "FluxTransformer2DModel", 1);
    const WeightMap clip = randomWeightsOf(clipConfigFlux1Fixture(), "CLIPTextModel", 2);
    const WeightMap t5 = randomWeightsOf(tinyT5Config(), "T5EncoderModel", 3);
    const WeightMap vae = randomWeightsOf(vaeConfigFlux1Fixture(), "AutoencoderKL", 4);

    writeJsonFile(f.folder + "/model_index.json",
                  {{"_class_name", "FluxPipeline"},
                   {"scheduler", {"diffusers", "FlowMatchEulerDiscreteScheduler"}},
                   {"text_encoder", {"transformers", "CLIPTextModel"}},
                   {"text_encoder_2", {"transformers", "T5EncoderModel"}},
                   {"tokenizer", {"transformers", "CLIPTokenizer"}},
                   {"tokenizer_2", {"transformers", "T5TokenizerFast"}},
                   {"transformer", {"diffusers", "FluxTransformer2DModel"}},
                   {"vae", {"diffusers", "AutoencoderKL"}}});
    writeJsonFile(f.folder + "/transformer/config.json", tc);
    writeSharded(f.folder + "/transformer", "diffusion_pytorch_model", transformer, 2);
    writeJsonFile(f.folder + "/text_encoder/config.json", clipConfigFlux1Fixture());
    writeWeightsFile(f.folder + "/text_encoder/model.safetensors", clip);
    writeJsonFile(f.folder + "/text_encoder_2/config.json", tinyT5Config());
    writeSharded(f.folder + "/text_encoder_2", "model", t5, 2);
    writeJsonFile(f.folder + "/vae/config.json", vaeConfigFlux1Fixture());
    writeWeightsFile(f.folder + "/vae/diffusion_pytorch_model.safetensors", vae);
    writeJsonFile(f.folder + "/scheduler/scheduler_config.json", schedulerConfigFlux1Fixture(dev));
    copyFolderFlux1Fixture(dataPath("../../resources/demo-model/tokenizer"),
                           f.folder + "/tokenizer");
    copyFolderFlux1Fixture(dataPath("flux1_tiny/tokenizer_2"), f.folder + "/tokenizer_2");

    // The single files, in a folder of their own with the tokenizers beside them.
    const std::string files = root + "/files";
    fs::create_directories(files);
    f.bfl = files + "/flux1-tiny.safetensors";
    f.bflPrefixed = files + "/bfl-prefixed.safetensors";
    f.ae = files + "/ae.safetensors";
    f.clipL = files + "/clip_l.safetensors";
    f.t5 = files + "/t5xxl_tiny.safetensors";
    const WeightMap bfl = fluxToBfl(transformer, 2, 2);
    writeWeightsFile(f.bfl, bfl);
    writeWeightsFile(f.bflPrefixed, bfl, "model.diffusion_model.");
    writeWeightsFile(f.ae, vaeToLdm(vae, 2));
    writeWeightsFile(f.clipL, clip);
    writeWeightsFile(f.t5, t5);
    f.tokenizer = files + "/tokenizer";
    f.tokenizer2 = files + "/tokenizer_2";
    copyFolderFlux1Fixture(f.folder + "/tokenizer", f.tokenizer);
    copyFolderFlux1Fixture(f.folder + "/tokenizer_2", f.tokenizer2);
    return f;
}

}  // namespace hs::test
