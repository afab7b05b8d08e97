#include "sd_fixture.h"

#include <filesystem>
#include <fstream>

#include "flux1_fixture.h"
#include "io/safetensors.h"
#include "sd_single_fixture.h"
#include "test_util.h"

namespace hs::test {

namespace fs = std::filesystem;

namespace {

// The demo model's tokenizer (its ids: test::demoTokenIds; 32 tokens) feeds both encoders.
nlohmann::json clipConfigSdFixture(bool openClip) {
    nlohmann::json j{
        {"architectures", {openClip ? "CLIPTextModelWithProjection" : "CLIPTextModel"}},
        {"model_type", "clip_text_model"},
        {"hidden_size", openClip ? 32 : 24},
        {"intermediate_size", openClip ? 64 : 48},
        {"num_hidden_layers", 3},
        {"num_attention_heads", 4},
        {"max_position_embeddings", 77},
        {"hidden_act", openClip ? "gelu" : "quick_gelu"},
        {"layer_norm_eps", 1e-5},
        {"pad_token_id", 1}};
    j.update(test::demoTokenIds());
    if (openClip) j["projection_dim"] = 16;
    return j;
}

// SD 1.x: conv projections, 8 heads; SDXL: linear projections, [1, 2] transformer layers, text_time
// conditioning of 6 time ids x 8 + the 16-wide projection.
nlohmann::json unetConfigSdFixture(bool xl) {
    nlohmann::json j{{"_class_name", "UNet2DConditionModel"},
                     {"in_channels", 4},
                     {"out_channels", 4},
                     {"sample_size", 8},
                     {"block_out_channels", {32, 64}},
                     {"layers_per_block", 1},
                     {"norm_num_groups", 32},
                     {"flip_sin_to_cos", true},
                     {"freq_shift", 0}};
    if (!xl) {
        j["down_block_types"] = {"CrossAttnDownBlock2D", "DownBlock2D"};
        j["up_block_types"] = {"UpBlock2D", "CrossAttnUpBlock2D"};
        j["attention_head_dim"] = 8;
        j["cross_attention_dim"] = 24;
        return j;
    }
    j["down_block_types"] = {"DownBlock2D", "CrossAttnDownBlock2D"};
    j["up_block_types"] = {"CrossAttnUpBlock2D", "UpBlock2D"};
    j["attention_head_dim"] = {4, 8};  // 8-wide heads: what a single file of these widths reads as
    j["transformer_layers_per_block"] = {1, 2};
    j["use_linear_projection"] = true;
    j["cross_attention_dim"] = 56;  // CLIP-L 24 + OpenCLIP 32
    j["addition_embed_type"] = "text_time";
    j["addition_time_embed_dim"] = 8;
    j["projection_class_embeddings_input_dim"] = 6 * 8 + 16;
    return j;
}

nlohmann::json vaeConfigSdFixture(bool xl) {
    return smallAutoencoderKlConfig({{"latent_channels", 4},
                                     {"scaling_factor", xl ? 0.13025 : 0.18215},
                                     {"force_upcast", true}});
}

}  // namespace

nlohmann::json sd15SchedulerConfig() {
    return nlohmann::json::parse(R"({
        "_class_name": "PNDMScheduler", "_diffusers_version": "0.6.0", "beta_end": 0.012,
        "beta_schedule": "scaled_linear", "beta_start": 0.00085, "num_train_timesteps": 1000,
        "set_alpha_to_one": false, "skip_prk_steps": true, "steps_offset": 1,
        "trained_betas": null, "clip_sample": false})");
}

nlohmann::json sdEulerConfig() {
    return nlohmann::json::parse(R"({
        "_class_name": "EulerDiscreteScheduler", "num_train_timesteps": 1000,
        "beta_start": 0.00085, "beta_end": 0.012, "beta_schedule": "scaled_linear",
        "interpolation_type": "linear", "prediction_type": "epsilon", "steps_offset": 1,
        "timestep_spacing": "leading", "use_karras_sigmas": false})");
}

SdFiles writeTinySd(const std::string& root, bool xl, const nlohmann::json& scheduler) {
    SdFiles f;
    f.folder = root + "/folder";
    f.unetConfig = unetConfigSdFixture(xl);
    f.vaeConfig = vaeConfigSdFixture(xl);
    f.textEncoderConfig = clipConfigSdFixture(false);
    f.unet = randomWeightsOf(f.unetConfig, "UNet2DConditionModel", 11);
    f.vae = randomWeightsOf(f.vaeConfig, "AutoencoderKL", 12);
    f.textEncoder = randomWeightsOf(f.textEncoderConfig, "CLIPTextModel", 13);
    nlohmann::json index{
        {"_class_name", xl ? "StableDiffusionXLPipeline" : "StableDiffusionPipeline"},
        {"scheduler", {"diffusers", scheduler["_class_name"]}},
        {"text_encoder", {"transformers", "CLIPTextModel"}},
        {"tokenizer", {"transformers", "CLIPTokenizer"}},
        {"unet", {"diffusers", "UNet2DConditionModel"}},
        {"vae", {"diffusers", "AutoencoderKL"}}};
    const std::string tokenizer = dataPath("../../resources/demo-model/tokenizer");
    auto copyTokenizer = [&](const std::string& to, bool padBang) {
        fs::create_directories(to);
        fs::copy(tokenizer, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        if (padBang)  // OpenCLIP's tokenizer pads with "!"
            writeJsonFile(to + "/special_tokens_map.json", {{"bos_token", "<|startoftext|>"},
                                                            {"eos_token", "<|endoftext|>"},
                                                            {"pad_token", "!"},
                                                            {"unk_token", "<|endoftext|>"}});
    };
    copyTokenizer(f.folder + "/tokenizer", false);
    if (xl) {
        f.textEncoder2Config = clipConfigSdFixture(true);
        f.textEncoder2 = randomWeightsOf(f.textEncoder2Config, "CLIPTextModelWithProjection", 14);
        index["text_encoder_2"] = {"transformers", "CLIPTextModelWithProjection"};
        index["tokenizer_2"] = {"transformers", "CLIPTokenizer"};
        index["force_zeros_for_empty_prompt"] = true;
        writeJsonFile(f.folder + "/text_encoder_2/config.json", f.textEncoder2Config);
        writeWeightsFile(f.folder + "/text_encoder_2/model.safetensors", f.textEncoder2);
        copyTokenizer(f.folder + "/tokenizer_2", true);
    }
    writeJsonFile(f.folder + "/model_index.json", index);
    writeJsonFile(f.folder + "/unet/config.json", f.unetConfig);
    writeWeightsFile(f.folder + "/unet/diffusion_pytorch_model.safetensors", f.unet);
    writeJsonFile(f.folder + "/vae/config.json", f.vaeConfig);
    writeWeightsFile(f.folder + "/vae/diffusion_pytorch_model.safetensors", f.vae);
    writeJsonFile(f.folder + "/text_encoder/config.json", f.textEncoderConfig);
    writeWeightsFile(f.folder + "/text_encoder/model.safetensors", f.textEncoder);
    writeJsonFile(f.folder + "/scheduler/scheduler_config.json", scheduler);
    return f;
}

// SD 2.x in small: an OpenCLIP-style encoder (exact GELU, no projection) whose tokenizer pads with
// "!", linear projections, 8-wide heads.
SdFiles writeTinySd2(const std::string& root, const nlohmann::json& scheduler) {
    SdFiles f = writeTinySd(root, false, scheduler);
    f.textEncoderConfig = clipConfigSdFixture(true);
    f.textEncoderConfig["architectures"] = {"CLIPTextModel"};
    f.textEncoderConfig.erase("projection_dim");
    f.textEncoder = randomWeightsOf(f.textEncoderConfig, "CLIPTextModel", 15);
    f.unetConfig["use_linear_projection"] = true;
    f.unetConfig["attention_head_dim"] = {4, 8};
    f.unetConfig["cross_attention_dim"] = 32;
    f.unet = randomWeightsOf(f.unetConfig, "UNet2DConditionModel", 16);
    writeJsonFile(f.folder + "/unet/config.json", f.unetConfig);
    writeWeightsFile(f.folder + "/unet/diffusion_pytorch_model.safetensors", f.unet);
    writeJsonFile(f.folder + "/text_encoder/config.json", f.textEncoderConfig);
    writeWeightsFile(f.folder + "/text_encoder/model.safetensors", f.textEncoder);
    writeJsonFile(f.folder + "/tokenizer/special_tokens_map.json",
                  {{"bos_token", "<|startoftext|>"},
                   {"eos_token", "<|endoftext|>"},
                   {"pad_token", "!"},
                   {"unk_token", "<|endoftext|>"}});
    return f;
}

std::string writeSdSingleFile(const SdFiles& f, const std::string& path, bool xl,
                              bool withSecondEncoder) {
    WeightMap all = unetToLdm(f.unet, f.unetConfig);
    for (const auto& [k, t] : vaeToLdm(f.vae, 2)) all["first_stage_model." + k] = t;
    const std::string clip =
        xl ? "conditioner.embedders.0.transformer." : "cond_stage_model.transformer.";
    if (f.textEncoderConfig.value("hidden_act", "") == "gelu") {
        // SD 2.x: OpenCLIP keys, one more resblock than the text encoder (the conversion drops
        // the last, which SD 2.x never uses).
        const int layers = f.textEncoderConfig["num_hidden_layers"].get<int>();
        for (auto& kv :
             clipToOpenClip(f.textEncoder, layers, "cond_stage_model.model.", torch::Tensor(), 1))
            all.insert(kv);
    } else {
        for (const auto& [k, t] : f.textEncoder) all[clip + k] = t;
    }
    if (xl && withSecondEncoder) {
        const int layers = f.textEncoder2Config["num_hidden_layers"].get<int>();
        for (auto& kv : clipToOpenClip(f.textEncoder2, layers, "conditioner.embedders.1.model.",
                                       f.textEncoder2.at("text_projection.weight")))
            all.insert(kv);
    }
    fs::create_directories(fs::path(path).parent_path());
    writeWeightsFile(path, all);
    // The tokenizers beside the file, as a user keeps them with a checkpoint of this vocabulary.
    const fs::path dir = fs::path(path).parent_path();
    for (const char* t : {"tokenizer", "tokenizer_2"})
        if (fs::exists(f.folder + "/" + t))
            fs::copy(f.folder + "/" + t, dir / t,
                     fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    return path;
}

}  // namespace hs::test
