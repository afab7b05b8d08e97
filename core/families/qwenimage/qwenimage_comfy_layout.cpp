#include "families/qwenimage/qwenimage_comfy_layout.h"

namespace hs {

namespace {

ConvertedComponent convertQwenImage(LayoutKeys& k, const WeightMap&) {
    const int64_t hidden = k.matrixSize("img_in.weight", 0);  // [D, in_channels]
    const int64_t inChannels = k.matrixSize("img_in.weight", 1);
    const int64_t jointDim = k.matrixSize("txt_in.weight", 1);  // [D, joint_attention_dim]
    const int numLayers = k.countBlocks("transformer_blocks.", "block");
    const std::string normKey = "transformer_blocks.0.attn.norm_q.weight";
    const int64_t headDim = k.peek(normKey).numel();  // RMSNorm over one head: [head_dim]
    const int64_t heads = k.quotient(hidden, headDim, "hidden size", "img_in.weight");
    // Not in the file: Qwen-Image's patch_size 2 (2 x 2-packed latents) and its RoPE split.
    const int64_t patch = 2;
    const int64_t outChannels = k.quotient(k.matrixSize("proj_out.weight", 0), patch * patch,
                                           "output width (out_channels x 4)", "proj_out.weight");
    if (headDim != 128)
        throw ConfigError(k.where() + "head width " + std::to_string(headDim) + " (from '" +
                          k.fileKey(normKey) +
                          "'): 'axes_dims_rope' is not in the file and is only known for "
                          "Qwen-Image's 128 ([16, 56, 56])");

    WeightMap w;
    for (const std::string& key : k.keys()) w[key] = k.take(key);

    ConvertedComponent c{"transformer", "QwenImageTransformer2DModel", {}, std::move(w)};
    c.config = {{"_class_name", c.className},   {"patch_size", patch},
                {"in_channels", inChannels},    {"out_channels", outChannels},
                {"num_layers", numLayers},      {"attention_head_dim", headDim},
                {"num_attention_heads", heads}, {"joint_attention_dim", jointDim},
                {"guidance_embeds", false},     {"axes_dims_rope", {16, 56, 56}}};
    const bool real = hidden == 3072 && numLayers == 60 && inChannels == 64;
    c.description = std::string(real ? "Qwen-Image transformer (20 B)" : "Qwen-Image transformer") +
                    ", ComfyUI layout" +
                    (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
                    std::to_string(numLayers) + " blocks, " + k.dtypeName() + "; " +
                    std::to_string(heads) + " heads x " + std::to_string(headDim) +
                    ", text width " + std::to_string(jointDim) + ", " + std::to_string(inChannels) +
                    " input channels; patch_size 2 and "
                    "axes_dims_rope [16, 56, 56] assumed as Qwen-Image has them (not in the file)";
    return c;
}

}  // namespace

SingleFileLayout qwenImageComfyLayout() {
    return {
        "Qwen-Image transformer (ComfyUI)",
        {"model.diffusion_model.", ""},
        {"img_in.", "txt_in.", "txt_norm.", "time_text_embed.", "transformer_blocks.", "norm_out.",
         "proj_out."},
        markerKeys({"txt_norm.weight", "img_in.weight", "transformer_blocks.0.img_mod.1.weight"}),
        convertQwenImage};
}

}  // namespace hs
