#include "families/flux/flux_bfl_layout.h"

#include <torch/torch.h>

namespace hs {

std::vector<int> fluxAxesDimsRopeFor(int headDim) {
    if (headDim == 128) return {16, 56, 56};
    if (headDim <= 0 || headDim % 8 != 0)
        throw ConfigError("Flux head dim " + std::to_string(headDim) +
                          " is not a multiple of 8: cannot infer axes_dims_rope");
    return {headDim / 4, headDim / 4, headDim / 2};
}

namespace {

// time_in / vector_in / guidance_in: MLPEmbedder(in_layer, out_layer) -> diffusers'
// TimestepEmbedding(linear_1, linear_2).
void moveEmbedder(LayoutKeys& k, WeightMap& out, const std::string& from, const std::string& to) {
    for (const char* p : {"weight", "bias"}) {
        out[to + ".linear_1." + p] = k.take(from + ".in_layer." + p);
        out[to + ".linear_2." + p] = k.take(from + ".out_layer." + p);
    }
}

// Splits `fused` ([sum(sizes), ...] weight or [sum(sizes)] bias) along dim 0 into views.
std::vector<torch::Tensor> splitRows(const LayoutKeys& k, const std::string& key,
                                     const torch::Tensor& fused, const std::vector<int64_t>& sizes,
                                     const std::string& expected) {
    int64_t total = 0;
    for (int64_t s : sizes) total += s;
    if (fused.dim() < 1 || fused.size(0) != total)
        k.fail("tensor '" + k.fileKey(key) + "' has shape " + shapeText(fused.sizes()) +
               ", expected " + std::to_string(total) + " rows (" + expected + ")");
    std::vector<torch::Tensor> parts;
    int64_t at = 0;
    for (int64_t s : sizes) {
        parts.push_back(fused.narrow(0, at, s));  // a view: rows are contiguous
        at += s;
    }
    return parts;
}

// One double-stream block: the image and text streams each have a fused qkv, a qk RMSNorm, an
// output projection, an MLP and a 6-way modulation.
void convertDoubleBlock(LayoutKeys& k, WeightMap& out, int i, int64_t hidden) {
    const std::string b = "double_blocks." + std::to_string(i) + ".";
    const std::string d = "transformer_blocks." + std::to_string(i) + ".";
    struct Stream {
        const char* bfl;  // img / txt
        const char* q;
        const char* kk;
        const char* v;
        const char* normQ;
        const char* normK;
        const char* out;
        const char* ff;
        const char* norm;
    };
    const Stream streams[] = {
        {"img", "attn.to_q", "attn.to_k", "attn.to_v", "attn.norm_q", "attn.norm_k",
         "attn.to_out.0", "ff", "norm1"},
        {"txt", "attn.add_q_proj", "attn.add_k_proj", "attn.add_v_proj", "attn.norm_added_q",
         "attn.norm_added_k", "attn.to_add_out", "ff_context", "norm1_context"}};
    for (const Stream& s : streams) {
        const std::string a = b + s.bfl + "_attn.";
        for (const char* p : {"weight", "bias"}) {
            const std::string key = a + "qkv." + p;
            auto qkv = splitRows(k, key, k.take(key), {hidden, hidden, hidden}, "q, k, v");
            out[d + s.q + "." + p] = qkv[0];
            out[d + s.kk + "." + p] = qkv[1];
            out[d + s.v + "." + p] = qkv[2];
        }
        out[d + s.normQ + ".weight"] = k.take(a + "norm.query_norm.scale", 1);
        out[d + s.normK + ".weight"] = k.take(a + "norm.key_norm.scale", 1);
        k.movePair(out, a + "proj", d + s.out);
        k.movePair(out, b + s.bfl + "_mlp.0", d + s.ff + ".net.0.proj");
        k.movePair(out, b + s.bfl + "_mlp.2", d + s.ff + ".net.2");
        k.movePair(out, b + s.bfl + "_mod.lin", d + s.norm + ".linear");
    }
}

// One single-stream block: linear1 fuses q, k, v and the MLP input ([3h + mlp, h]); linear2 is
// the output projection over [attention, mlp].
void convertSingleBlock(LayoutKeys& k, WeightMap& out, int i, int64_t hidden) {
    const std::string b = "single_blocks." + std::to_string(i) + ".";
    const std::string d = "single_transformer_blocks." + std::to_string(i) + ".";
    const int64_t mlp = 4 * hidden;  // diffusers' FluxSingleTransformerBlock: mlp_ratio 4
    for (const char* p : {"weight", "bias"}) {
        const std::string key = b + "linear1." + p;
        auto parts = splitRows(k, key, k.take(key), {hidden, hidden, hidden, mlp},
                               "q, k, v and an MLP of 4 x hidden " + std::to_string(hidden));
        out[d + "attn.to_q." + p] = parts[0];
        out[d + "attn.to_k." + p] = parts[1];
        out[d + "attn.to_v." + p] = parts[2];
        out[d + "proj_mlp." + p] = parts[3];
    }
    out[d + "attn.norm_q.weight"] = k.take(b + "norm.query_norm.scale", 1);
    out[d + "attn.norm_k.weight"] = k.take(b + "norm.key_norm.scale", 1);
    k.movePair(out, b + "linear2", d + "proj_out");
    k.movePair(out, b + "modulation.lin", d + "norm.linear");
}

// BFL's final layer modulation yields (shift, scale); diffusers' AdaLayerNormContinuous splits
// its linear output as (scale, shift). Swapping the halves of the rows is the one copy.
torch::Tensor swapShiftScale(const LayoutKeys& k, const std::string& key, const torch::Tensor& t,
                             int64_t hidden) {
    auto halves = splitRows(k, key, t, {hidden, hidden}, "shift, scale");
    return torch::cat({halves[1], halves[0]}, 0);
}

ConvertedComponent convertFlux(LayoutKeys& k, const WeightMap& /*all*/) {
    const torch::Tensor imgIn = k.peek("img_in.weight");  // [hidden, in_channels]
    if (imgIn.dim() != 2)
        k.fail("tensor '" + k.fileKey("img_in.weight") + "' has shape " + shapeText(imgIn.sizes()) +
               ", expected [hidden, in_channels]");
    const int64_t hidden = k.size("img_in.weight", 0), inChannels = k.size("img_in.weight", 1);
    const int numLayers = k.countBlocks("double_blocks.", "double block");
    const int numSingle = k.countBlocks("single_blocks.", "single block");
    const std::string normKey = numLayers > 0 ? "double_blocks.0.img_attn.norm.query_norm.scale"
                                              : "single_blocks.0.norm.query_norm.scale";
    const int64_t headDim = k.peek(normKey).numel();  // RMSNorm over one head: [head_dim]
    if (headDim < 2 || hidden % headDim != 0)
        k.fail("hidden size " + std::to_string(hidden) + " ('" + k.fileKey("img_in.weight") +
               "') is not a multiple of the head dim " + std::to_string(headDim) + " ('" +
               k.fileKey(normKey) + "')");
    const bool guidance = k.has("guidance_in.in_layer.weight");

    const int64_t pooledDim = k.size("vector_in.in_layer.weight", 1);
    const int64_t jointDim = k.size("txt_in.weight", 1);
    const int64_t outChannels = k.size("final_layer.linear.weight", 0);

    WeightMap w;
    moveEmbedder(k, w, "time_in", "time_text_embed.timestep_embedder");
    moveEmbedder(k, w, "vector_in", "time_text_embed.text_embedder");
    if (guidance) moveEmbedder(k, w, "guidance_in", "time_text_embed.guidance_embedder");
    w["context_embedder.weight"] = k.take("txt_in.weight", 2);  // [hidden, joint_attention_dim]
    w["context_embedder.bias"] = k.take("txt_in.bias");
    k.movePair(w, "img_in", "x_embedder");
    for (int i = 0; i < numLayers; ++i) convertDoubleBlock(k, w, i, hidden);
    for (int i = 0; i < numSingle; ++i) convertSingleBlock(k, w, i, hidden);
    k.movePair(w, "final_layer.linear", "proj_out");  // [out_channels, hidden]
    for (const char* p : {"weight", "bias"}) {
        const std::string key = std::string("final_layer.adaLN_modulation.1.") + p;
        w[std::string("norm_out.linear.") + p] = swapShiftScale(k, key, k.take(key), hidden);
    }

    const std::vector<int> axes = fluxAxesDimsRopeFor(static_cast<int>(headDim));
    ConvertedComponent c{"transformer", "FluxTransformer2DModel", {}, std::move(w)};
    // patch_size 1: BFL packs 2x2 latent patches into 64 channels outside the model.
    c.config = {{"_class_name", c.className},
                {"patch_size", 1},
                {"in_channels", inChannels},
                {"out_channels",
                 outChannels == inChannels ? nlohmann::json(nullptr) : nlohmann::json(outChannels)},
                {"num_layers", numLayers},
                {"num_single_layers", numSingle},
                {"attention_head_dim", headDim},
                {"num_attention_heads", hidden / headDim},
                {"joint_attention_dim", jointDim},
                {"pooled_projection_dim", pooledDim},
                {"guidance_embeds", guidance},
                {"axes_dims_rope", axes}};
    // FLUX.1's own shape is named as such; other shapes say which FLUX.1 they resemble.
    const bool flux1 = hidden == 3072 && numLayers == 19 && numSingle == 38 && inChannels == 64;
    const std::string variant = guidance ? "dev" : "schnell";
    c.description =
        (flux1 ? "FLUX.1-" + variant + " transformer" : std::string("Flux transformer")) +
        ", Black Forest Labs layout" +
        (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
        std::to_string(numLayers) + " double + " + std::to_string(numSingle) + " single blocks, " +
        k.dtypeName() + "; " + std::to_string(hidden / headDim) + " heads x " +
        std::to_string(headDim) + (guidance ? ", guidance embedding" : ", no guidance embedding") +
        (flux1 ? "" : " (FLUX.1-" + variant + " style)") +
        (inChannels != 64 ? ", " + std::to_string(inChannels) + " input channels" : "") +
        (headDim != 128
             ? "; axes_dims_rope " + shapeText(std::vector<int64_t>(axes.begin(), axes.end())) +
                   " inferred (not in the file)"
             : "");
    return c;
}

}  // namespace

SingleFileLayout fluxBflLayout() {
    // diffusers' marker is double_blocks.0.img_attn.norm.key_norm.scale; img_in + txt_in +
    // final_layer also find a file whose block 0 is missing, so the error can say so.
    return {"Black Forest Labs Flux transformer",
            {"model.diffusion_model.", ""},
            {"double_blocks.", "single_blocks.", "img_in.", "txt_in.", "time_in.", "vector_in.",
             "guidance_in.", "final_layer."},
            markerKeys({"img_in.weight", "txt_in.weight", "final_layer.linear.weight"}),
            convertFlux};
}

}  // namespace hs
