#include "demo/demo_config.h"

#include "demo/prompt_words.h"

namespace hs::demo {

nlohmann::json textEncoderConfig(int vocabSize, int bosId, int eosId, int padId) {
    return {{"_name_or_path", "halfscope-demo"},
            {"architectures", {"CLIPTextModel"}},
            {"model_type", "clip_text_model"},
            {"hidden_size", 128},
            {"intermediate_size", 512},
            {"num_attention_heads", 4},
            {"num_hidden_layers", 4},
            {"max_position_embeddings", kTextLength},
            {"vocab_size", vocabSize},
            {"hidden_act", "quick_gelu"},
            {"layer_norm_eps", 1e-5},
            {"projection_dim", 128},
            {"bos_token_id", bosId},
            {"eos_token_id", eosId},
            {"pad_token_id", padId},
            {"torch_dtype", "bfloat16"}};
}

nlohmann::json transformerConfig() {
    return {{"_class_name", "FluxTransformer2DModel"},
            {"patch_size", 1},
            {"in_channels", 16},
            {"out_channels", nullptr},
            {"num_layers", 3},
            {"num_single_layers", 3},
            {"attention_head_dim", 64},
            {"num_attention_heads", 3},
            {"joint_attention_dim", 128},
            {"pooled_projection_dim", 128},
            {"guidance_embeds", false},
            {"axes_dims_rope", {16, 24, 24}}};
}

nlohmann::json vaeConfig(double scalingFactor, double shiftFactor) {
    return {
        {"_class_name", "AutoencoderKL"},
        {"in_channels", 3},
        {"out_channels", 3},
        {"down_block_types",
         {"DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D"}},
        {"up_block_types",
         {"UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"}},
        // A base checkpoint's [32, 64, 96] with one more 32-channel level in front, so a refit
        // grows the base VAE into this one (base_checkpoint.h).
        {"block_out_channels", {32, 32, 64, 96}},
        {"layers_per_block", 1},
        {"act_fn", "silu"},
        {"latent_channels", 4},
        {"norm_num_groups", 16},
        {"sample_size", 128},
        {"scaling_factor", scalingFactor},
        {"shift_factor", shiftFactor},
        {"force_upcast", false},
        {"use_quant_conv", true},
        {"use_post_quant_conv", true},
        {"mid_block_add_attention", true}};
}

nlohmann::json schedulerConfig() {
    return {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
            {"num_train_timesteps", 1000},
            {"shift", 1.0},
            {"use_dynamic_shifting", false}};
}

nlohmann::json modelIndex() {
    return {{"_class_name", kDemoPipelineClass},
            {"text_encoder", {"transformers", "CLIPTextModel"}},
            {"tokenizer", {"transformers", "CLIPTokenizer"}},
            {"transformer", {"diffusers", "FluxTransformer2DModel"}},
            {"vae", {"diffusers", "AutoencoderKL"}},
            {"scheduler", {"diffusers", "FlowMatchEulerDiscreteScheduler"}}};
}

}  // namespace hs::demo
