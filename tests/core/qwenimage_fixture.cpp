#include "qwenimage_fixture.h"

#include <filesystem>
#include <fstream>

#include "anima_fixture.h"
#include "denoising/qwenimage_strategy.h"
#include "flux1_fixture.h"
#include "io/safetensors.h"
#include "models/registry.h"
#include "runtime/demo_location.h"
#include "test_util.h"

namespace hs::test {

namespace fs = std::filesystem;

namespace {

// The language model of Qwen2.5-VL (realQwen25VlTextConfig) 16 wide, over its vocabulary size
// 152064 (the tokenizer's 151,646 ids fit). The values a single file does not store are the ones
// its conversion assumes (rope_theta 1e6, rms_norm_eps 1e-6).
nlohmann::json textEncoderConfig(int hidden = 16, int vocab = 152064) {
    nlohmann::json j = realQwen25VlTextConfig();
    j.update({{"vocab_size", vocab},
              {"hidden_size", hidden},
              {"intermediate_size", 32},
              {"num_hidden_layers", 2},
              {"num_attention_heads", 4},
              {"num_key_value_heads", 2},
              {"rope_scaling", {{"type", "mrope"}, {"mrope_section", {1, 0, 1}}}}});
    return j;
}

nlohmann::json transformerConfigQwenimageFixture() {
    return {{"_class_name", "QwenImageTransformer2DModel"},
            {"patch_size", 2},
            {"in_channels", 64},  // 16 latent channels x 2 x 2
            {"out_channels", 16},
            {"num_layers", 2},
            {"attention_head_dim", 128},
            {"num_attention_heads", 1},
            {"joint_attention_dim", 16},  // the text encoder's width
            {"guidance_embeds", false},
            {"axes_dims_rope", {16, 56, 56}}};
}

// Every writer into the two residual streams; every reader (img_norm1/2, txt_norm1/2, norm_out)
// is a LayerNorm without affine, so scaling them all by c changes nothing but the streams' size.
void scaleResidualWriters(WeightMap& dit, double c, double mlpGain) {
    const int layers = transformerConfigQwenimageFixture()["num_layers"];
    scaleStreamWriters(
        dit,
        R"(((img|txt)_in|transformer_blocks\.\d+\.(attn\.to_out\.0|attn\.to_add_out|img_mlp\.net\.2|txt_mlp\.net\.2))\.(weight|bias))",
        [](const std::string& key) { return key.find("_mlp.net.2.") != std::string::npos; }, c,
        mlpGain, 4 + 8 * layers);
}

WeightMap withVisualTensor(WeightMap w) {
    w["visual.patch_embed.proj.weight"] = torch::zeros({8, 3, 2, 2, 2});
    return w;
}

}  // namespace

std::string writeTinyQwen25Vl(const std::string& path, int hidden, int vocab) {
    writeWeightsFile(
        path, withVisualTensor(randomFixtureWeights(textEncoderConfig(hidden, vocab),
                                                    "Qwen2_5_VLForConditionalGeneration", 41)));
    return path;
}

QwenImageFiles writeTinyQwenImage(const std::string& root, double residualScale, double mlpGain) {
    QwenImageFiles f;
    f.root = root;
    f.folder = root + "/folder";
    // Keys under "model." (the family's names for this class): the checkpoint's.
    const WeightMap text =
        randomFixtureWeights(textEncoderConfig(), "Qwen2_5_VLForConditionalGeneration", 21);
    WeightMap dit = randomFixtureWeights(transformerConfigQwenimageFixture(),
                                         "QwenImageTransformer2DModel", 22);
    if (residualScale != 1.0 || mlpGain != 1.0) scaleResidualWriters(dit, residualScale, mlpGain);
    f.transformer = dit;
    const WeightMap vae =
        randomFixtureWeights(tinyQwenImageVaeConfig(), "AutoencoderKLQwenImage", 23);

    writeJsonFile(f.folder + "/model_index.json",
                  {{"_class_name", "QwenImagePipeline"},
                   {"_diffusers_version", "0.35.0.dev0"},
                   {"scheduler", {"diffusers", "FlowMatchEulerDiscreteScheduler"}},
                   {"text_encoder", {"transformers", "Qwen2_5_VLForConditionalGeneration"}},
                   {"tokenizer", {"transformers", "Qwen2Tokenizer"}},
                   {"transformer", {"diffusers", "QwenImageTransformer2DModel"}},
                   {"vae", {"diffusers", "AutoencoderKLQwenImage"}}});
    writeJsonFile(f.folder + "/text_encoder/config.json", textEncoderConfig());
    writeWeightsFile(f.folder + "/text_encoder/model.safetensors", text);
    fs::create_directories(f.folder + "/tokenizer");
    fs::copy(findBundledTokenizer("qwen2"), f.folder + "/tokenizer",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    writeJsonFile(f.folder + "/transformer/config.json", transformerConfigQwenimageFixture());
    writeWeightsFile(f.folder + "/transformer/diffusion_pytorch_model.safetensors", dit);
    writeJsonFile(f.folder + "/vae/config.json", tinyQwenImageVaeConfig());
    writeWeightsFile(f.folder + "/vae/diffusion_pytorch_model.safetensors", vae);
    nlohmann::json sched = qwenImageSchedulerConfig();
    sched["_diffusers_version"] = "0.35.0.dev0";
    writeJsonFile(f.folder + "/scheduler/scheduler_config.json", sched);

    const std::string set = root + "/comfyui";
    f.dit = set + "/qwen_image_tiny.safetensors";
    writeWeightsFile(f.dit, dit);
    f.textEncoder = set + "/qwen_2.5_vl_tiny.safetensors";
    writeWeightsFile(f.textEncoder, withVisualTensor(text));
    f.vae = set + "/qwen_image_vae.safetensors";
    writeWeightsFile(f.vae, wanVaeToOriginal(vae, 1));
    return f;
}

std::string writeShardedQwenImage(const QwenImageFiles& f, const std::string& root, int shards) {
    const std::string folder = root + "/folder";
    fs::create_directories(folder);
    fs::copy(f.folder, folder, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    fs::remove(folder + "/transformer/diffusion_pytorch_model.safetensors");
    writeSharded(folder + "/transformer", "diffusion_pytorch_model", f.transformer, shards);
    return folder;
}

nlohmann::json realQwen25VlTextConfig() {
    return nlohmann::json::parse(R"({
        "architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl",
        "vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
        "max_position_embeddings": 128000, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "hidden_act": "silu",
        "use_sliding_window": false, "tie_word_embeddings": false})");
}

nlohmann::json realQwenImageTransformerConfig() {
    return {{"_class_name", "QwenImageTransformer2DModel"},
            {"attention_head_dim", 128},
            {"axes_dims_rope", {16, 56, 56}},
            {"guidance_embeds", false},
            {"in_channels", 64},
            {"joint_attention_dim", 3584},
            {"num_attention_heads", 24},
            {"num_layers", 60},
            {"out_channels", 16},
            {"patch_size", 2}};
}

}  // namespace hs::test
