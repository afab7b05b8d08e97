#include "families/qwen/qwen_single_file.h"

namespace hs {

int qwen2HeadDimFor(int64_t qRows, int64_t kRows) {
    if (qRows >= 128 && qRows % 128 == 0 && kRows % 128 == 0) return 128;
    if (qRows > 0 && qRows < 128 && qRows % 4 == 0 && kRows % (qRows / 4) == 0)
        return static_cast<int>(qRows / 4);
    throw ConfigError("Qwen2 q_proj width " + std::to_string(qRows) + " and k_proj width " +
                      std::to_string(kRows) +
                      " are neither multiples of 128 nor a test-sized width (under 128) of 4 "
                      "heads: cannot infer head_dim");
}

namespace {

const char* kQ = "layers.0.self_attn.q_proj.weight";

// Rows of `key`, a 2-D weight: [out, in].
int64_t rowsOf(LayoutKeys& k, const std::string& key) {
    const torch::Tensor& t = k.peek(key);
    if (t.dim() != 2)
        k.fail("tensor '" + k.fileKey(key) + "' has shape " + shapeText(t.sizes()) +
               ", expected [out, in]");
    return k.size(key, 0);
}

ConvertedComponent convertQwen(LayoutKeys& k, const WeightMap& all) {
    const std::string tok = "embed_tokens.weight";
    const torch::Tensor embed = k.peek(tok);  // [vocab, hidden]
    if (embed.dim() != 2)
        k.fail("tensor '" + k.fileKey(tok) + "' has shape " + shapeText(embed.sizes()) +
               ", expected [vocab, hidden]");
    const int64_t vocab = k.size(tok, 0), hidden = k.size(tok, 1);
    const int layers = k.countBlocks("layers.", "layer");
    if (layers == 0) k.fail("no layers ('" + k.fileKey("layers.0.*") + "')");
    const bool qwen3 = k.has("layers.0.self_attn.q_norm.weight");
    const bool bias = k.has("layers.0.self_attn.q_proj.bias");
    const int64_t qRows = rowsOf(k, kQ), kRows = rowsOf(k, "layers.0.self_attn.k_proj.weight");
    const int64_t intermediate = rowsOf(k, "layers.0.mlp.gate_proj.weight");
    int64_t headDim = 0;
    if (qwen3) {
        headDim = k.peek("layers.0.self_attn.q_norm.weight").numel();  // [head_dim]
    } else {
        try {
            headDim = qwen2HeadDimFor(qRows, kRows);
        } catch (const ConfigError& e) {
            throw ConfigError(k.where() + e.what());
        }
    }
    if (headDim <= 0 || qRows % headDim != 0 || kRows % headDim != 0)
        k.fail("q_proj (" + std::to_string(qRows) + " rows) and k_proj (" + std::to_string(kRows) +
               " rows) are not whole heads of " + std::to_string(headDim));
    if (!qwen3 && !bias)
        k.fail("missing tensor '" + k.fileKey("layers.0.self_attn.q_proj.bias") +
               "': Qwen2 attention has q/k/v biases (a Qwen3 file has q_norm)");
    const int64_t heads = qRows / headDim, kvHeads = kRows / headDim;

    // Every tensor of every layer, so that a missing one is named here.
    std::vector<std::string> names{"input_layernorm.weight",  "post_attention_layernorm.weight",
                                   "self_attn.q_proj.weight", "self_attn.k_proj.weight",
                                   "self_attn.v_proj.weight", "self_attn.o_proj.weight",
                                   "mlp.gate_proj.weight",    "mlp.up_proj.weight",
                                   "mlp.down_proj.weight"};
    if (bias)
        for (const char* n :
             {"self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias"})
            names.push_back(n);
    if (qwen3) {
        names.push_back("self_attn.q_norm.weight");
        names.push_back("self_attn.k_norm.weight");
        if (bias) names.push_back("self_attn.o_proj.bias");  // Qwen3 attention_bias: o too
    }
    WeightMap w;
    w[tok] = k.take(tok, 2);
    for (int i = 0; i < layers; ++i) {
        const std::string b = "layers." + std::to_string(i) + ".";
        for (const auto& n : names) w[b + n] = k.take(b + n);
        k.takeIfPresent(b + "self_attn.rotary_emb.inv_freq");  // a buffer some files saved
    }
    w["norm.weight"] = k.take("norm.weight", 1);
    k.finish();

    ConvertedComponent c{"text_encoder", qwen3 ? "Qwen3Model" : "Qwen2Model", {}, std::move(w)};
    const int maxPositions = qwen3 ? 40960 : 128000;
    c.config = {{"architectures", {c.className}},
                {"model_type", qwen3 ? "qwen3" : "qwen2"},
                {"vocab_size", vocab},
                {"hidden_size", hidden},
                {"intermediate_size", intermediate},
                {"num_hidden_layers", layers},
                {"num_attention_heads", heads},
                {"num_key_value_heads", kvHeads},
                {"head_dim", headDim},
                {"hidden_act", "silu"},
                {"rms_norm_eps", 1e-6},
                {"rope_theta", 1000000.0},
                {"max_position_embeddings", maxPositions},
                {"use_sliding_window", false},
                {"tie_word_embeddings", false}};
    if (qwen3) c.config["attention_bias"] = bias;
    const bool vl = all.count("visual.patch_embed.proj.weight") > 0 ||
                    all.count("model.visual.patch_embed.proj.weight") > 0;
    c.description = std::string(qwen3 ? "Qwen3"
                                : vl  ? "Qwen2.5-VL language model"
                                      : "Qwen2") +
                    " text encoder (" + c.className + "), transformers keys" +
                    (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
                    std::to_string(layers) + " layers, hidden " + std::to_string(hidden) + ", " +
                    std::to_string(heads) + " heads (" + std::to_string(kvHeads) + " kv) x " +
                    std::to_string(headDim) + ", intermediate " + std::to_string(intermediate) +
                    ", vocab " + std::to_string(vocab) + ", " + k.dtypeName() + "; assumed: " +
                    (qwen3 ? std::string() : "head_dim " + std::to_string(headDim) + ", ") +
                    "rope_theta 1e6, rms_norm_eps 1e-6, max_position_embeddings " +
                    std::to_string(maxPositions);
    return c;
}

}  // namespace

SingleFileLayout qwenSingleFileLayout() {
    return {"Qwen text encoder (transformers keys)",
            {"model.", "model.language_model.", ""},
            {"embed_tokens.", "layers.", "norm."},
            markerKeys({"embed_tokens.weight", kQ, "layers.0.mlp.gate_proj.weight"}),
            convertQwen};
}

}  // namespace hs
