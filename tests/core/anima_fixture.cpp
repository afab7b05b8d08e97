#include "anima_fixture.h"

#include <filesystem>
#include <fstream>
#include <regex>

#include "io/safetensors.h"
#include "models/registry.h"
#include "test_util.h"

namespace hs::test {

namespace fs = std::filesystem;

WeightMap cosmosToOriginal(const WeightMap& d, int layers) {
    WeightMap o;
    auto put = [&](const std::string& from, const std::string& to) { o[to] = d.at(from); };
    put("patch_embed.proj.weight", "x_embedder.proj.1.weight");
    put("time_embed.t_embedder.linear_1.weight", "t_embedder.1.linear_1.weight");
    put("time_embed.t_embedder.linear_2.weight", "t_embedder.1.linear_2.weight");
    put("time_embed.norm.weight", "t_embedding_norm.weight");
    const std::pair<const char*, const char*> attn[] = {{"attn1", "self_attn"},
                                                        {"attn2", "cross_attn"}};
    const std::pair<const char*, const char*> proj[] = {
        {"to_q", "q_proj"},          {"to_k", "k_proj"},   {"to_v", "v_proj"},
        {"to_out.0", "output_proj"}, {"norm_q", "q_norm"}, {"norm_k", "k_norm"}};
    const std::pair<const char*, const char*> mod[] = {{"norm1", "adaln_modulation_self_attn"},
                                                       {"norm2", "adaln_modulation_cross_attn"},
                                                       {"norm3", "adaln_modulation_mlp"}};
    for (int i = 0; i < layers; ++i) {
        const std::string s = "transformer_blocks." + std::to_string(i) + ".";
        const std::string t = "blocks." + std::to_string(i) + ".";
        for (const auto& [da, oa] : attn)
            for (const auto& [dp, op] : proj)
                put(s + da + "." + dp + ".weight", t + oa + "." + op + ".weight");
        put(s + "ff.net.0.proj.weight", t + "mlp.layer1.weight");
        put(s + "ff.net.2.weight", t + "mlp.layer2.weight");
        for (const auto& [dn, on] : mod) {
            put(s + dn + ".linear_1.weight", t + on + ".1.weight");
            put(s + dn + ".linear_2.weight", t + on + ".2.weight");
        }
    }
    put("norm_out.linear_1.weight", "final_layer.adaln_modulation.1.weight");
    put("norm_out.linear_2.weight", "final_layer.adaln_modulation.2.weight");
    put("proj_out.weight", "final_layer.linear.weight");
    return o;
}

WeightMap wanVaeToOriginal(const WeightMap& d, int resnets) {
    // Residual blocks: norm1 / conv1 / norm2 / conv2 / conv_shortcut are residual.0 / .2 / .3 /
    // .6 and shortcut; the middle is middle.0-2; heads are head.0 (norm) and head.2 (conv).
    const std::pair<std::regex, std::string> rules[] = {
        {std::regex(R"((.*)\.norm1\.gamma)"), "$1.residual.0.gamma"},
        {std::regex(R"((.*)\.conv1\.(weight|bias))"), "$1.residual.2.$2"},
        {std::regex(R"((.*)\.norm2\.gamma)"), "$1.residual.3.gamma"},
        {std::regex(R"((.*)\.conv2\.(weight|bias))"), "$1.residual.6.$2"},
        {std::regex(R"((.*)\.conv_shortcut\.(weight|bias))"), "$1.shortcut.$2"},
    };
    WeightMap o;
    for (const auto& [key, t] : d) {
        std::string k = key;
        std::smatch m;
        static const std::regex up(
            R"(decoder\.up_blocks\.(\d+)\.(resnets\.(\d+)|upsamplers\.0)(.*))");
        if (std::regex_match(key, m, up)) {
            const int level = std::stoi(m[1]);
            const int j = m[3].matched ? std::stoi(m[3]) : resnets + 1;
            k = "decoder.upsamples." + std::to_string(level * (resnets + 2) + j) + m[4].str();
        }
        k = std::regex_replace(k, std::regex(R"(encoder\.down_blocks\.)"), "encoder.downsamples.");
        k = std::regex_replace(k, std::regex(R"(mid_block\.resnets\.0)"), "middle.0");
        k = std::regex_replace(k, std::regex(R"(mid_block\.attentions\.0)"), "middle.1");
        k = std::regex_replace(k, std::regex(R"(mid_block\.resnets\.1)"), "middle.2");
        if (k.find("middle.1.") == std::string::npos && k.find("resample") == std::string::npos &&
            k.find("time_conv") == std::string::npos)
            for (const auto& [re, to] : rules)
                if (std::regex_match(k, re) && k.find(".conv_in") == std::string::npos &&
                    k.find(".conv_out") == std::string::npos) {
                    k = std::regex_replace(k, re, to);
                    break;
                }
        k = std::regex_replace(k, std::regex(R"(^(encoder|decoder)\.conv_in\.)"), "$1.conv1.");
        k = std::regex_replace(k, std::regex(R"(^(encoder|decoder)\.norm_out\.)"), "$1.head.0.");
        k = std::regex_replace(k, std::regex(R"(^(encoder|decoder)\.conv_out\.)"), "$1.head.2.");
        k = std::regex_replace(k, std::regex(R"(^quant_conv\.)"), "conv1.");
        k = std::regex_replace(k, std::regex(R"(^post_quant_conv\.)"), "conv2.");
        o[k] = t;
    }
    return o;
}

// Random weights of every tensor the family's module for `config` holds: norms' scales near 1,
// biases small, matrices at 1/sqrt(fan_in) (the families' own initialisers do not reach every
// custom layer).
WeightMap randomFixtureWeights(const nlohmann::json& config, const std::string& className,
                               uint64_t seed) {
    const auto family = FamilyRegistry::global().require(className, "fixture");
    auto c = family->build(ComponentSource{"fixture", config, {}}, "fixture");
    auto gen = at::detail::createCPUGenerator(seed);
    WeightMap w;
    for (auto& [key, t] : stateOf(c->module())) {
        auto r = torch::randn(t.sizes(), gen, torch::kFloat32);
        const bool scale =
            key.find("norm") != std::string::npos && key.compare(key.size() - 6, 6, "weight") == 0;
        if (scale)
            r = 1 + 0.1 * r;
        else if (t.dim() < 2)
            r = 0.02 * r;
        else
            r = r / std::sqrt(double(t.numel() / t.size(0)));
        w.emplace(key, r);
    }
    return w;
}

// The Qwen-Image VAE's shape at a tiny width: 16 latent channels (diffusers' latents_mean /
// latents_std have 16 entries), two levels, spatial factor 2.
nlohmann::json tinyQwenImageVaeConfig() {
    return {{"_class_name", "AutoencoderKLQwenImage"},
            {"base_dim", 8},
            {"z_dim", 16},
            {"dim_mult", {1, 2}},
            {"num_res_blocks", 1},
            {"attn_scales", nlohmann::json::array()},
            {"temperal_downsample", {false}},
            {"dropout", 0.0}};
}

namespace {

void writeFile(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the rest map to
// U+0100 onwards. Returns the UTF-8 text of each byte's symbol.
std::vector<std::string> byteSymbols() {
    std::vector<int> cps(256, -1);
    for (int b = 0; b < 256; ++b)
        if ((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF))
            cps[b] = b;
    int n = 0;
    for (int b = 0; b < 256; ++b)
        if (cps[b] < 0) cps[b] = 256 + n++;
    std::vector<std::string> out;
    for (int cp : cps) {
        std::string s;
        if (cp < 0x80) {
            s += char(cp);
        } else {
            s += char(0xC0 | (cp >> 6));
            s += char(0x80 | (cp & 0x3F));
        }
        out.push_back(s);
    }
    return out;
}

// A byte-level BPE tokenizer folder as Qwen2Tokenizer saves it: the 256 byte symbols, a few
// merges, <|endoftext|> as the pad token. 263 ids.
void writeQwenTokenizer(const std::string& dir) {
    nlohmann::json vocab;
    const auto sym = byteSymbols();
    for (int b = 0; b < 256; ++b) vocab[sym[b]] = b;
    const std::string G = sym[' '];  // "Ġ"
    const std::vector<std::pair<std::string, std::string>> merges{
        {"t", "h"}, {"th", "e"}, {G, "the"}, {"i", "n"}, {G, "a"}, {"e", "r"}};
    std::string text = "#version: 0.2\n";
    int id = 256;
    for (const auto& [a, b] : merges) {
        text += a + " " + b + "\n";
        vocab[a + b] = id++;
    }
    writeJsonFile(dir + "/vocab.json", vocab);
    writeFile(dir + "/merges.txt", text);
    writeJsonFile(dir + "/tokenizer_config.json",
                  {{"added_tokens_decoder",
                    {{std::to_string(id),
                      {{"content", "<|endoftext|>"}, {"special", true}, {"normalized", false}}}}},
                   {"bos_token", nullptr},
                   {"eos_token", "<|endoftext|>"},
                   {"pad_token", "<|endoftext|>"},
                   {"errors", "replace"},
                   {"model_max_length", 131072},
                   {"tokenizer_class", "Qwen2Tokenizer"}});
}

nlohmann::json qwenConfig(int hidden = 32) {
    return {{"architectures", {"Qwen3Model"}},
            {"model_type", "qwen3"},
            {"vocab_size", 300},
            {"hidden_size", hidden},
            {"intermediate_size", 48},
            {"num_hidden_layers", 2},
            {"num_attention_heads", 4},
            {"num_key_value_heads", 2},
            {"head_dim", 8},
            {"max_position_embeddings", 40960},
            {"rms_norm_eps", 1e-6},
            {"rope_theta", 1000000.0},
            {"attention_bias", false},
            {"hidden_act", "silu"},
            {"tie_word_embeddings", false}};
}

nlohmann::json conditionerConfig() {
    // target_vocab_size: the T5 tokenizer's ids fit.
    return nlohmann::json::parse(R"({
        "_class_name": "AnimaTextConditioner", "source_dim": 32, "target_dim": 24,
        "model_dim": 32, "num_layers": 2, "num_attention_heads": 4, "mlp_ratio": 2.0,
        "target_vocab_size": 416, "use_self_attention": true, "use_layer_norm": false,
        "min_sequence_length": 512})");
}

// Cosmos-Predict2 2B in small.
nlohmann::json transformerConfigAnimaFixture() {
    nlohmann::json j = realCosmosPredict2Config();
    j.update(nlohmann::json::parse(R"({
        "num_attention_heads": 2, "attention_head_dim": 16, "num_layers": 2, "mlp_ratio": 2.0,
        "text_embed_dim": 24, "adaln_lora_dim": 8, "use_crossattn_projection": false})"));
    return j;
}

// Modulations near identity (scale ~0, gates small), as AdaLN-zero training leaves them: random
// ones would multiply the DiT's stream by hundreds in every branch.
void tameModulation(WeightMap& dit) {
    static const std::regex modulation(
        R"((transformer_blocks\.\d+\.norm\d|norm_out|time_embed\.t_embedder)\.linear_2\.weight)");
    for (auto& [key, t] : dit)
        if (std::regex_match(key, modulation)) t = t * 0.02;
}

nlohmann::json schedulerConfigAnimaFixture() {
    return nlohmann::json::parse(R"({
        "_class_name": "FlowMatchEulerDiscreteScheduler", "base_image_seq_len": 256,
        "base_shift": 0.5, "invert_sigmas": false, "max_image_seq_len": 4096, "max_shift": 1.15,
        "num_train_timesteps": 1000, "shift": 3.0, "shift_terminal": null,
        "stochastic_sampling": false, "time_shift_type": "exponential", "use_beta_sigmas": false,
        "use_dynamic_shifting": false, "use_exponential_sigmas": false,
        "use_karras_sigmas": false})");
}

// modular_model_index.json's entry for a component saved in its own sub-folder.
nlohmann::json entry(const std::string& library, const std::string& cls, const std::string& name,
                     const std::string& savedAt) {
    return {library,
            cls,
            {{"pretrained_model_name_or_path", savedAt},
             {"revision", nullptr},
             {"subfolder", name},
             {"type_hint", {library, cls}},
             {"variant", nullptr}}};
}

void copyFolderAnimaFixture(const std::string& from, const std::string& to) {
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

}  // namespace

std::string writeTinyCosmos2(const std::string& root) {
    const std::string folder = root + "/cosmos2";
    const nlohmann::json t5 = {{"architectures", {"T5EncoderModel"}},
                               {"model_type", "t5"},
                               {"vocab_size", 416},  // the tiny spiece.model's ids fit
                               {"d_model", 24},      // the DiT's text_embed_dim
                               {"d_kv", 8},
                               {"d_ff", 48},
                               {"num_layers", 2},
                               {"num_heads", 3},
                               {"relative_attention_num_buckets", 32},
                               {"relative_attention_max_distance", 128},
                               {"feed_forward_proj", "relu"},
                               {"layer_norm_epsilon", 1e-6}};
    nlohmann::json vae = tinyQwenImageVaeConfig();
    vae["_class_name"] = "AutoencoderKLWan";
    nlohmann::json sched = schedulerConfigAnimaFixture();
    sched["shift"] = 1.0;
    sched["use_karras_sigmas"] = true;
    writeJsonFile(folder + "/model_index.json",
                  {{"_class_name", "Cosmos2TextToImagePipeline"},
                   {"_diffusers_version", "0.34.0"},
                   {"safety_checker", {nullptr, nullptr}},
                   {"scheduler", {"diffusers", "FlowMatchEulerDiscreteScheduler"}},
                   {"text_encoder", {"transformers", "T5EncoderModel"}},
                   {"tokenizer", {"transformers", "T5TokenizerFast"}},
                   {"transformer", {"diffusers", "CosmosTransformer3DModel"}},
                   {"vae", {"diffusers", "AutoencoderKLWan"}}});
    writeJsonFile(folder + "/text_encoder/config.json", t5);
    writeWeightsFile(folder + "/text_encoder/model.safetensors",
                     randomFixtureWeights(t5, "T5EncoderModel", 31));
    copyFolderAnimaFixture(dataPath("flux1_tiny/tokenizer_2"), folder + "/tokenizer");
    WeightMap dit =
        randomFixtureWeights(transformerConfigAnimaFixture(), "CosmosTransformer3DModel", 32);
    tameModulation(dit);
    writeJsonFile(folder + "/transformer/config.json", transformerConfigAnimaFixture());
    writeWeightsFile(folder + "/transformer/diffusion_pytorch_model.safetensors", dit);
    writeJsonFile(folder + "/vae/config.json", vae);
    writeWeightsFile(folder + "/vae/diffusion_pytorch_model.safetensors",
                     randomFixtureWeights(vae, "AutoencoderKLWan", 33));
    writeJsonFile(folder + "/scheduler/scheduler_config.json", sched);
    return folder;
}

std::string writeTinyQwen3(const std::string& dir, int hidden) {
    writeJsonFile(dir + "/config.json", qwenConfig(hidden));
    writeWeightsFile(dir + "/model.safetensors",
                     randomFixtureWeights(qwenConfig(hidden), "Qwen3Model", 21));
    return dir;
}

AnimaFiles writeTinyAnima(const std::string& root, double residualScale) {
    AnimaFiles f;
    f.root = root;
    f.folder = root + "/folder";
    const int layers = transformerConfigAnimaFixture()["num_layers"];
    WeightMap qwen = randomFixtureWeights(qwenConfig(), "Qwen3Model", 11);
    WeightMap conditioner = randomFixtureWeights(conditionerConfig(), "AnimaTextConditioner", 12);
    WeightMap dit =
        randomFixtureWeights(transformerConfigAnimaFixture(), "CosmosTransformer3DModel", 13);
    const WeightMap vae =
        randomFixtureWeights(tinyQwenImageVaeConfig(), "AutoencoderKLQwenImage", 14);
    tameModulation(dit);
    for (auto& [key, t] : dit) {
        static const std::regex writers(
            R"(patch_embed\.proj\.weight|transformer_blocks\.\d+\.(attn1\.to_out\.0|attn2\.to_out\.0|ff\.net\.2)\.weight)");
        if (std::regex_match(key, writers)) t = t * residualScale;
    }
    f.transformer = dit;

    const std::string saved = "/tmp/anima-tiny-diffusers";  // where the index says it was saved
    writeJsonFile(
        f.folder + "/modular_model_index.json",
        {{"_blocks_class_name", "AnimaAutoBlocks"},
         {"_class_name", "AnimaModularPipeline"},
         {"_diffusers_version", "0.37.0.dev0"},
         {"scheduler", entry("diffusers", "FlowMatchEulerDiscreteScheduler", "scheduler", saved)},
         {"t5_tokenizer", entry("transformers", "T5TokenizerFast", "t5_tokenizer", saved)},
         {"text_conditioner",
          entry("diffusers", "AnimaTextConditioner", "text_conditioner", saved)},
         {"text_encoder", entry("transformers", "Qwen3Model", "text_encoder", saved)},
         {"tokenizer", entry("transformers", "Qwen2TokenizerFast", "tokenizer", saved)},
         {"transformer", entry("diffusers", "CosmosTransformer3DModel", "transformer", saved)},
         {"vae", entry("diffusers", "AutoencoderKLQwenImage", "vae", saved)}});
    writeJsonFile(f.folder + "/text_encoder/config.json", qwenConfig());
    writeWeightsFile(f.folder + "/text_encoder/model.safetensors", qwen);
    writeQwenTokenizer(f.folder + "/tokenizer");
    copyFolderAnimaFixture(dataPath("flux1_tiny/tokenizer_2"), f.folder + "/t5_tokenizer");
    writeJsonFile(f.folder + "/text_conditioner/config.json", conditionerConfig());
    writeWeightsFile(f.folder + "/text_conditioner/diffusion_pytorch_model.safetensors",
                     conditioner);
    writeJsonFile(f.folder + "/transformer/config.json", transformerConfigAnimaFixture());
    writeWeightsFile(f.folder + "/transformer/diffusion_pytorch_model.safetensors", dit);
    writeJsonFile(f.folder + "/vae/config.json", tinyQwenImageVaeConfig());
    writeWeightsFile(f.folder + "/vae/diffusion_pytorch_model.safetensors", vae);
    writeJsonFile(f.folder + "/scheduler/scheduler_config.json", schedulerConfigAnimaFixture());

    // ComfyUI's set: the DiT with its adapter, the Qwen3 under "model.", the VAE in Wan's keys.
    const std::string set = root + "/comfyui";
    fs::create_directories(set);
    WeightMap file;
    for (const auto& [k, t] : cosmosToOriginal(dit, layers)) file["net." + k] = t;
    for (const auto& [k, t] : conditioner) file["net.llm_adapter." + k] = t;
    f.dit = set + "/anima-tiny.safetensors";
    writeWeightsFile(f.dit, file);
    f.qwen = set + "/qwen_3_06b_base.safetensors";
    writeWeightsFile(f.qwen, qwen, "model.");
    f.vae = set + "/qwen_image_vae.safetensors";
    writeWeightsFile(f.vae, wanVaeToOriginal(vae, 1));
    f.tokenizer = set + "/tokenizer";
    copyFolderAnimaFixture(f.folder + "/tokenizer", f.tokenizer);
    f.t5Tokenizer = set + "/t5_tokenizer";
    copyFolderAnimaFixture(f.folder + "/t5_tokenizer", f.t5Tokenizer);
    return f;
}

nlohmann::json realCosmosPredict2Config() {
    return {{"_class_name", "CosmosTransformer3DModel"},
            {"in_channels", 16},  // the VAE's z_dim
            {"out_channels", 16},
            {"num_attention_heads", 16},
            {"attention_head_dim", 128},
            {"num_layers", 28},
            {"mlp_ratio", 4.0},
            {"text_embed_dim", 1024},
            {"adaln_lora_dim", 256},
            {"max_size", {128, 240, 240}},
            {"patch_size", {1, 2, 2}},
            {"rope_scale", {1.0, 4.0, 4.0}},
            {"concat_padding_mask", true},
            {"extra_pos_embed_type", nullptr}};
}

}  // namespace hs::test
