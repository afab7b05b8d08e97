#include "families/cosmos/cosmos_original_layout.h"

#include <torch/torch.h>

#include "base/affixes.h"

namespace hs {

namespace {

bool hasUnder(const WeightMap& all, const std::string& head) {
    auto it = all.lower_bound(head);
    return it != all.end() && startsWith(it->first, head);
}

// Keys the model does not need, dropped deliberately as diffusers'
// TRANSFORMER_SPECIAL_KEYS_REMAP_COSMOS_2_0 drops them: the RoPE buffers
// (pos_embedder.seq, pos_embedder.dim_spatial_range, pos_embedder.dim_temporal_range), the
// training counters (accum_video_sample_counter, accum_image_sample_counter, accum_iteration,
// accum_train_in_hours) and Transformer Engine's *._extra_state.
void dropUnused(LayoutKeys& k) {
    for (const std::string& key : k.keys())
        if (startsWith(key, "pos_embedder.") || startsWith(key, "accum_") ||
            endsWith(key, "_extra_state"))
            k.take(key);
}

void move(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to) {
    w[to] = k.take(from, -1);
}

// One block: self-attention, cross-attention and MLP, each with its AdaLN-LoRA modulation
// (adaln_modulation_*.1 down to the LoRA width, .2 back up to 3 x hidden). No biases.
void convertBlock(LayoutKeys& k, WeightMap& w, int i) {
    const std::string b = "blocks." + std::to_string(i) + ".";
    const std::string d = "transformer_blocks." + std::to_string(i) + ".";
    const std::pair<const char*, const char*> attns[] = {{"self_attn", "attn1"},
                                                         {"cross_attn", "attn2"}};
    for (const auto& [from, to] : attns) {
        const std::string a = b + from + ".", o = d + to + ".";
        move(k, w, a + "q_proj.weight", o + "to_q.weight");
        move(k, w, a + "k_proj.weight", o + "to_k.weight");
        move(k, w, a + "v_proj.weight", o + "to_v.weight");
        move(k, w, a + "output_proj.weight", o + "to_out.0.weight");
        move(k, w, a + "q_norm.weight", o + "norm_q.weight");
        move(k, w, a + "k_norm.weight", o + "norm_k.weight");
    }
    move(k, w, b + "mlp.layer1.weight", d + "ff.net.0.proj.weight");
    move(k, w, b + "mlp.layer2.weight", d + "ff.net.2.weight");
    const std::pair<const char*, const char*> mods[] = {{"adaln_modulation_self_attn", "norm1"},
                                                        {"adaln_modulation_cross_attn", "norm2"},
                                                        {"adaln_modulation_mlp", "norm3"}};
    for (const auto& [from, to] : mods) {
        move(k, w, b + from + ".1.weight", d + to + ".linear_1.weight");
        move(k, w, b + from + ".2.weight", d + to + ".linear_2.weight");
    }
}

ConvertedComponent convertCosmos(LayoutKeys& k, const WeightMap& all) {
    dropUnused(k);
    const std::string xKey = "x_embedder.proj.1.weight";
    const torch::Tensor x = k.peek(xKey);  // [hidden, (in + mask) * pt * ph * pw]
    if (x.dim() != 2)
        k.fail("tensor '" + k.fileKey(xKey) + "' has shape " + shapeText(x.sizes()) +
               ", expected [hidden, channels x patch volume]");
    const int64_t hidden = k.size(xKey, 0);
    const int numLayers = k.countBlocks("blocks.", "block");
    const std::string normKey = "blocks.0.self_attn.q_norm.weight";
    const int64_t headDim = k.peek(normKey).numel();  // RMSNorm over one head: [head_dim]
    const int64_t heads = k.quotient(hidden, headDim, "hidden size", xKey);
    const int64_t ff = k.size("blocks.0.mlp.layer1.weight", 0);  // [ff, hidden]
    const int64_t lora = k.size("blocks.0.adaln_modulation_self_attn.1.weight", 0);
    const int64_t textDim = k.matrixSize("blocks.0.cross_attn.k_proj.weight", 1);

    // Not in the file: as diffusers' Cosmos-2.0-Diffusion-2B-Text2Image config has them.
    const std::vector<int> patch{1, 2, 2};
    const int64_t volume = patch[0] * patch[1] * patch[2];
    const int64_t outChannels =
        k.quotient(k.matrixSize("final_layer.linear.weight", 0), volume,
                   "output width (out_channels x patch volume 4)", "final_layer.linear.weight");
    const int64_t xChannels =
        k.quotient(k.size(xKey, 1), volume, "input width (channels x patch volume 4)", xKey);
    // The padding mask is one more input channel: in == out with it, as in every Predict2.
    const bool mask = xChannels == outChannels + 1;
    const int64_t inChannels = mask ? outChannels : xChannels;

    WeightMap w;
    move(k, w, xKey, "patch_embed.proj.weight");
    move(k, w, "t_embedder.1.linear_1.weight", "time_embed.t_embedder.linear_1.weight");
    move(k, w, "t_embedder.1.linear_2.weight", "time_embed.t_embedder.linear_2.weight");
    move(k, w, "t_embedding_norm.weight", "time_embed.norm.weight");
    for (int i = 0; i < numLayers; ++i) convertBlock(k, w, i);
    move(k, w, "final_layer.adaln_modulation.1.weight", "norm_out.linear_1.weight");
    move(k, w, "final_layer.adaln_modulation.2.weight", "norm_out.linear_2.weight");
    move(k, w, "final_layer.linear.weight", "proj_out.weight");

    ConvertedComponent c{"transformer", "CosmosTransformer3DModel", {}, std::move(w)};
    c.config = {{"_class_name", c.className},
                {"in_channels", inChannels},
                {"out_channels", outChannels},
                {"num_attention_heads", heads},
                {"attention_head_dim", headDim},
                {"num_layers", numLayers},
                {"mlp_ratio", double(ff) / double(hidden)},
                {"text_embed_dim", textDim},
                {"adaln_lora_dim", lora},
                {"max_size", {128, 240, 240}},
                {"patch_size", patch},
                {"rope_scale", {1.0, 4.0, 4.0}},
                {"concat_padding_mask", mask},
                {"extra_pos_embed_type", nullptr},
                {"use_crossattn_projection", false}};
    const bool twoB = hidden == 2048 && numLayers == 28;
    const bool adapter = hasUnder(all, k.prefix() + "llm_adapter.");
    c.description =
        std::string(twoB ? "Cosmos-Predict2-2B DiT" : "Cosmos-Predict2 DiT") +
        (adapter ? " (Anima)" : "") + ", NVIDIA layout" +
        (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
        std::to_string(numLayers) + " blocks, " + k.dtypeName() + "; " + std::to_string(heads) +
        " heads x " + std::to_string(headDim) + ", AdaLN-LoRA " + std::to_string(lora) +
        ", text width " + std::to_string(textDim) + ", " + std::to_string(inChannels) +
        " channels" + (mask ? " + padding mask" : "") +
        "; patch_size [1, 2, 2], rope_scale [1, 4, 4] and max_size [128, 240, 240] assumed as "
        "Cosmos-Predict2-2B-Text2Image has them (not in the file)" +
        (adapter ? std::string()
                 : "; Anima's LLM adapter (" + k.prefix() +
                       "llm_adapter.*) is missing: the text conditioner must come from elsewhere");
    return c;
}

// diffusers' infer_text_conditioner_config, plus what else the shapes say (the MLP ratio,
// self-attention, LayerNorm's bias); min_sequence_length is not in the file (512, Anima's).
ConvertedComponent convertAnimaAdapter(LayoutKeys& k, const WeightMap&) {
    // A handle of its own, not a reference into `k`: move() below takes embed.weight out of
    // the key set, which frees the map node a reference would point into.
    const torch::Tensor embed = k.matrix("embed.weight");  // [vocab, target_dim]
    const int64_t targetVocab = k.size("embed.weight", 0), targetDim = k.size("embed.weight", 1);
    const int numLayers = k.countBlocks("blocks.", "adapter block");
    const bool selfAttn = k.has("blocks.0.self_attn.q_proj.weight");
    const bool layerNorm = k.has("blocks.0.norm_cross_attn.bias");
    const int64_t modelDim = k.matrixSize("blocks.0.cross_attn.q_proj.weight", 0);
    const int64_t sourceDim = k.matrixSize("blocks.0.cross_attn.k_proj.weight", 1);
    const std::string normKey = "blocks.0.cross_attn.q_norm.weight";
    const int64_t heads = k.quotient(modelDim, k.peek(normKey).numel(), "model width",
                                     "blocks.0.cross_attn.q_proj.weight");
    const int64_t mlp = k.matrixSize("blocks.0.mlp.0.weight", 0);

    WeightMap w;
    move(k, w, "embed.weight", "embed.weight");
    if (modelDim != targetDim) {
        move(k, w, "in_proj.weight", "in_proj.weight");
        move(k, w, "in_proj.bias", "in_proj.bias");
    }
    for (int i = 0; i < numLayers; ++i) {
        const std::string b = "blocks." + std::to_string(i) + ".";
        std::vector<std::string> parts{"cross_attn"};
        if (selfAttn) parts.insert(parts.begin(), "self_attn");
        for (const std::string& a : parts) {
            for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj", "q_norm", "k_norm"})
                move(k, w, b + a + "." + p + ".weight", b + a + "." + p + ".weight");
            const std::string norm = b + "norm_" + a;
            move(k, w, norm + ".weight", norm + ".weight");
            if (layerNorm) move(k, w, norm + ".bias", norm + ".bias");
        }
        move(k, w, b + "norm_mlp.weight", b + "norm_mlp.weight");
        if (layerNorm) move(k, w, b + "norm_mlp.bias", b + "norm_mlp.bias");
        for (const char* l : {"mlp.0", "mlp.2"})
            for (const char* p : {"weight", "bias"}) move(k, w, b + l + "." + p, b + l + "." + p);
    }
    move(k, w, "out_proj.weight", "out_proj.weight");
    move(k, w, "out_proj.bias", "out_proj.bias");
    move(k, w, "norm.weight", "norm.weight");

    ConvertedComponent c{"text_conditioner", "AnimaTextConditioner", {}, std::move(w)};
    c.config = {{"_class_name", c.className},
                {"source_dim", sourceDim},
                {"target_dim", targetDim},
                {"model_dim", modelDim},
                {"num_layers", numLayers},
                {"num_attention_heads", heads},
                {"mlp_ratio", double(mlp) / double(modelDim)},
                {"target_vocab_size", targetVocab},
                {"use_self_attention", selfAttn},
                {"use_layer_norm", layerNorm},
                {"min_sequence_length", 512}};
    c.description = "Anima LLM adapter, under " + k.prefix() + ", " + std::to_string(numLayers) +
                    " blocks, " + k.dtypeName() + "; " + std::to_string(heads) + " heads, width " +
                    std::to_string(modelDim) + ", Qwen3 width " + std::to_string(sourceDim) +
                    "; min_sequence_length 512 assumed (not in the file)";
    return c;
}

const std::vector<std::string> kPrefixes{"net.", "model.diffusion_model.", ""};

}  // namespace

SingleFileLayout cosmosOriginalLayout() {
    // ComfyUI's model_detection.py marks Cosmos-Predict2 / Anima by blocks.0.mlp.layer1.weight
    // (Anima when llm_adapter.blocks.0.cross_attn.q_proj.weight is there too); the embedders and
    // the final layer also find a file whose block 0 is missing, so the error can say so.
    return {"Cosmos-Predict2 / Anima DiT (NVIDIA layout)",
            kPrefixes,
            {"x_embedder.", "t_embedder.", "t_embedding_norm.", "blocks.", "final_layer.",
             "pos_embedder.", "accum_"},
            markerKeys({"x_embedder.proj.1.weight", "t_embedder.1.linear_1.weight",
                        "final_layer.linear.weight"}),
            convertCosmos};
}

SingleFileLayout animaAdapterOriginalLayout() {
    // Its keys below llm_adapter. are diffusers' own (split_anima_transformer_checkpoint only
    // removes the prefix), so the prefix includes it.
    std::vector<std::string> prefixes;
    for (const std::string& p : kPrefixes) prefixes.push_back(p + "llm_adapter.");
    return {"Anima LLM adapter", prefixes, {""}, markerKeys({"embed.weight"}), convertAnimaAdapter};
}

}  // namespace hs
