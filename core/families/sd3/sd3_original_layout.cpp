#include "families/sd3/sd3_original_layout.h"

#include <torch/torch.h>

#include <cmath>

namespace hs {

namespace {

// Stability's reference code (sd3_impls.py MMDiTX) and ComfyUI build num_heads = hidden / 64:
// every released SD3 has 64-wide heads. A file with qk-norm says its head width (ln_q's size).
constexpr int64_t kSD3HeadDim = 64;
// Not in the file: the released models' sample_size (it only scales the stored table).
constexpr int64_t kSD3SampleSize = 128;

// Splits `key` ([n * hidden, ...] weight or [n * hidden] bias) along dim 0 into n views.
std::vector<torch::Tensor> sd3SplitRows(const LayoutKeys& k, const std::string& key,
                                        const torch::Tensor& fused, int64_t hidden, int n,
                                        const std::string& expected) {
    if (fused.dim() < 1 || fused.size(0) != n * hidden)
        k.fail("tensor '" + k.fileKey(key) + "' has shape " + shapeText(fused.sizes()) +
               ", expected " + std::to_string(n * hidden) + " rows (" + expected + ")");
    std::vector<torch::Tensor> parts;
    for (int i = 0; i < n; ++i) parts.push_back(fused.narrow(0, i * hidden, hidden));
    return parts;
}

// attn.qkv -> three projections named by `names` (q, k, v).
void sd3SplitQkv(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to,
                 const char* const names[3], int64_t hidden) {
    for (const char* p : {"weight", "bias"}) {
        const std::string key = from + ".qkv." + p;
        auto parts = sd3SplitRows(k, key, k.take(key), hidden, 3, "q, k, v");
        for (int i = 0; i < 3; ++i) w[to + "." + names[i] + "." + p] = parts[size_t(i)];
    }
}

// A (shift, scale) modulation -> AdaLayerNormContinuous's (scale, shift).
void swapShiftScaleSD3(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to,
                       int64_t hidden) {
    for (const char* p : {"weight", "bias"}) {
        const std::string key = from + "." + p;
        auto halves = sd3SplitRows(k, key, k.take(key), hidden, 2, "shift, scale");
        w[to + "." + p] = torch::cat({halves[1], halves[0]}, 0);
    }
}

void sd3ConvertJointBlock(LayoutKeys& k, WeightMap& w, int i, bool last, bool qk, int64_t hidden) {
    const std::string b = "joint_blocks." + std::to_string(i) + ".";
    const std::string d = "transformer_blocks." + std::to_string(i) + ".";
    static const char* const kSample[3] = {"to_q", "to_k", "to_v"};
    static const char* const kContext[3] = {"add_q_proj", "add_k_proj", "add_v_proj"};
    // The image stream (x_block).
    sd3SplitQkv(k, w, b + "x_block.attn", d + "attn", kSample, hidden);
    k.movePair(w, b + "x_block.attn.proj", d + "attn.to_out.0");
    if (qk) {
        w[d + "attn.norm_q.weight"] = k.take(b + "x_block.attn.ln_q.weight", 1);
        w[d + "attn.norm_k.weight"] = k.take(b + "x_block.attn.ln_k.weight", 1);
    }
    if (k.has(b + "x_block.attn2.qkv.weight")) {  // SD3.5's dual attention
        sd3SplitQkv(k, w, b + "x_block.attn2", d + "attn2", kSample, hidden);
        k.movePair(w, b + "x_block.attn2.proj", d + "attn2.to_out.0");
        if (qk) {
            w[d + "attn2.norm_q.weight"] = k.take(b + "x_block.attn2.ln_q.weight", 1);
            w[d + "attn2.norm_k.weight"] = k.take(b + "x_block.attn2.ln_k.weight", 1);
        }
    }
    k.movePair(w, b + "x_block.adaLN_modulation.1", d + "norm1.linear");
    k.movePair(w, b + "x_block.mlp.fc1", d + "ff.net.0.proj");
    k.movePair(w, b + "x_block.mlp.fc2", d + "ff.net.2");
    // The text stream (context_block); the last block's is pre-only: q, k, v and a 2-way
    // modulation, no output projection and no MLP.
    sd3SplitQkv(k, w, b + "context_block.attn", d + "attn", kContext, hidden);
    if (qk) {
        w[d + "attn.norm_added_q.weight"] = k.take(b + "context_block.attn.ln_q.weight", 1);
        w[d + "attn.norm_added_k.weight"] = k.take(b + "context_block.attn.ln_k.weight", 1);
    }
    if (last) {
        swapShiftScaleSD3(k, w, b + "context_block.adaLN_modulation.1", d + "norm1_context.linear",
                          hidden);
        return;
    }
    k.movePair(w, b + "context_block.attn.proj", d + "attn.to_add_out");
    k.movePair(w, b + "context_block.adaLN_modulation.1", d + "norm1_context.linear");
    k.movePair(w, b + "context_block.mlp.fc1", d + "ff_context.net.0.proj");
    k.movePair(w, b + "context_block.mlp.fc2", d + "ff_context.net.2");
}

ConvertedComponent convertSD3(LayoutKeys& k, const WeightMap& /*all*/) {
    const std::string xKey = "x_embedder.proj.weight";
    const torch::Tensor x = k.peek(xKey);  // [hidden, in_channels, p, p]
    if (x.dim() != 4 || x.size(2) != x.size(3))
        k.fail("tensor '" + k.fileKey(xKey) + "' has shape " + shapeText(x.sizes()) +
               ", expected [hidden, in_channels, patch, patch]");
    const int64_t hidden = k.size(xKey, 0), inChannels = k.size(xKey, 1);
    const int64_t patch = k.size(xKey, 2, 1, kMaxPatch);
    const int numLayers = k.countBlocks("joint_blocks.", "joint block");
    if (numLayers == 0) k.fail("no '" + k.fileKey("joint_blocks.0.*") + "' tensors");
    const std::string lnQ = "joint_blocks.0.x_block.attn.ln_q.weight";
    const bool qk = k.has(lnQ);
    const int64_t headDim = qk ? k.peek(lnQ).numel() : kSD3HeadDim;
    const int64_t heads =
        k.quotient(hidden, headDim,
                   qk ? "hidden size (head width from '" + k.fileKey(lnQ) + "')"
                      : "hidden size (heads of 64, as Stability's code builds them)",
                   xKey);
    std::vector<int> dual;
    for (int i = 0; i < numLayers; ++i)
        if (k.has("joint_blocks." + std::to_string(i) + ".x_block.attn2.qkv.weight"))
            dual.push_back(i);
    const int64_t caption = k.matrixSize("context_embedder.weight", 0);
    const int64_t jointDim = k.matrixSize("context_embedder.weight", 1);
    const int64_t pooled = k.matrixSize("y_embedder.mlp.0.weight", 1);
    const int64_t outChannels =
        k.quotient(k.matrixSize("final_layer.linear.weight", 0), patch * patch,
                   "output width (out_channels x patch^2)", "final_layer.linear.weight");
    const torch::Tensor pos = k.peek("pos_embed");  // [1, max^2, hidden]
    if (pos.dim() != 3 || pos.size(0) != 1 || pos.size(2) != hidden)
        k.fail("tensor '" + k.fileKey("pos_embed") + "' has shape " + shapeText(pos.sizes()) +
               ", expected [1, max^2, " + std::to_string(hidden) + "]");
    const int64_t cells = k.size("pos_embed", 1);
    const auto maxSize = int64_t(std::llround(std::sqrt(double(cells))));
    if (maxSize * maxSize != cells)
        k.fail("tensor '" + k.fileKey("pos_embed") + "' holds " + std::to_string(cells) +
               " positions, not a square grid");

    WeightMap w;
    w["pos_embed.pos_embed"] = k.take("pos_embed", 3);
    k.movePair(w, "x_embedder.proj", "pos_embed.proj");
    k.movePair(w, "t_embedder.mlp.0", "time_text_embed.timestep_embedder.linear_1");
    k.movePair(w, "t_embedder.mlp.2", "time_text_embed.timestep_embedder.linear_2");
    k.movePair(w, "y_embedder.mlp.0", "time_text_embed.text_embedder.linear_1");
    k.movePair(w, "y_embedder.mlp.2", "time_text_embed.text_embedder.linear_2");
    k.movePair(w, "context_embedder", "context_embedder");
    for (int i = 0; i < numLayers; ++i)
        sd3ConvertJointBlock(k, w, i, i == numLayers - 1, qk, hidden);
    k.movePair(w, "final_layer.linear", "proj_out");
    swapShiftScaleSD3(k, w, "final_layer.adaLN_modulation.1", "norm_out.linear", hidden);

    ConvertedComponent c{"transformer", "SD3Transformer2DModel", {}, std::move(w)};
    c.config = {{"_class_name", c.className},
                {"sample_size", kSD3SampleSize},
                {"patch_size", patch},
                {"in_channels", inChannels},
                {"out_channels", outChannels},
                {"num_layers", numLayers},
                {"attention_head_dim", headDim},
                {"num_attention_heads", heads},
                {"joint_attention_dim", jointDim},
                {"caption_projection_dim", caption},
                {"pooled_projection_dim", pooled},
                {"pos_embed_max_size", maxSize},
                {"dual_attention_layers", dual},
                {"qk_norm", qk ? nlohmann::json("rms_norm") : nlohmann::json(nullptr)}};
    // The released models by their shapes (diffusers' infer_diffusers_model_type tells them
    // apart by the table's size and block 37).
    std::string name = "SD3 MMDiT";
    if (hidden == 1536 && numLayers == 24 && dual.empty() && !qk) name = "SD3 medium MMDiT";
    if (hidden == 1536 && numLayers == 24 && !dual.empty() && qk) name = "SD3.5 medium MMDiT";
    if (hidden == 2432 && numLayers == 38 && dual.empty() && qk) name = "SD3.5 large MMDiT";
    c.description = name + ", Stability AI layout" +
                    (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
                    std::to_string(numLayers) + " blocks (" + std::to_string(dual.size()) +
                    " with dual attention), " + k.dtypeName() + "; " + std::to_string(heads) +
                    " heads x " + std::to_string(headDim) + (qk ? ", RMS qk-norm" : "") +
                    ", patch " + std::to_string(patch) + ", " + std::to_string(maxSize) + " x " +
                    std::to_string(maxSize) + " positional table" +
                    (qk ? std::string() : "; head width 64 assumed (not in the file)") +
                    "; sample_size 128 assumed (not in the file; it only scales the stored table)";
    return c;
}

}  // namespace

SingleFileLayout sd3OriginalLayout() {
    // diffusers' marker is joint_blocks.0.context_block.adaLN_modulation.1.bias; the embedders
    // also find a file whose block 0 is missing, so the error can say so.
    return {"SD3 MMDiT",
            {"model.diffusion_model.", ""},
            {"pos_embed", "x_embedder.", "t_embedder.", "y_embedder.", "context_embedder.",
             "joint_blocks.", "final_layer."},
            markerKeys(
                {"x_embedder.proj.weight", "y_embedder.mlp.0.weight", "context_embedder.weight"}),
            convertSD3};
}

}  // namespace hs
