#include "families/t5/t5_single_file.h"

namespace hs {

namespace {

const char* kBias = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight";

ConvertedComponent convertT5(LayoutKeys& k, const WeightMap& all) {
    WeightMap w;
    // transformers ties encoder.embed_tokens to shared; files hold either or both.
    torch::Tensor shared = k.takeIfPresent("shared.weight");
    torch::Tensor embed = k.takeIfPresent("encoder.embed_tokens.weight");
    if (!shared.defined()) shared = embed;
    if (!shared.defined())
        k.fail("no token embedding: neither '" + k.fileKey("shared.weight") + "' nor '" +
               k.fileKey("encoder.embed_tokens.weight") + "'");
    if (shared.dim() != 2)
        k.fail("the token embedding has shape " + shapeText(shared.sizes()) +
               ", expected [vocab, d_model]");
    if (embed.defined() && embed.sizes() != shared.sizes())
        k.fail("'" + k.fileKey("encoder.embed_tokens.weight") + "' " + shapeText(embed.sizes()) +
               " and '" + k.fileKey("shared.weight") + "' " + shapeText(shared.sizes()) +
               " differ: they are one tied embedding");
    w["shared.weight"] = shared;  // [vocab, d_model]
    const int64_t vocab = k.sizeOf(shared, "shared.weight", 0);
    const int64_t dModel = k.sizeOf(shared, "shared.weight", 1);

    const int layers = k.countBlocks("encoder.block.", "block");
    if (layers == 0) k.fail("no blocks ('" + k.fileKey("encoder.block.0.*") + "')");
    const torch::Tensor bias = k.peek(kBias);  // [buckets, heads]
    if (bias.dim() != 2) k.fail("'" + k.fileKey(kBias) + "' is not [buckets, heads]");
    for (int i = 1; i < layers; ++i) {
        const std::string b = "encoder.block." + std::to_string(i) +
                              ".layer.0.SelfAttention.relative_attention_bias.weight";
        if (k.has(b))
            k.fail("'" + k.fileKey(b) +
                   "': a relative attention bias in every block is UMT5 "
                   "(Wan's umt5-xxl), not T5; UMT5 is not supported");
    }
    const int64_t buckets = k.size(kBias, 0), heads = k.size(kBias, 1);
    const int64_t inner = k.size("encoder.block.0.layer.0.SelfAttention.q.weight", 0);
    if (inner % heads != 0)
        k.fail("q's " + std::to_string(inner) + " rows are not a multiple of the " +
               std::to_string(heads) + " heads of '" + k.fileKey(kBias) + "'");
    const std::string ff = "encoder.block.0.layer.1.DenseReluDense.";
    const bool gated = k.has(ff + "wi_0.weight");
    const int64_t dFf = k.size(ff + (gated ? "wi_0.weight" : "wi.weight"), 0);

    for (const std::string& key : k.keys())
        if (key.rfind("encoder.block.", 0) == 0) w[key] = k.take(key);
    w["encoder.final_layer_norm.weight"] = k.take("encoder.final_layer_norm.weight", 1);
    k.finish();

    ConvertedComponent c;
    c.weights = std::move(w);
    // Flux's second text encoder; SD3's third (its all-in-one files also hold CLIP-G).
    c.slot = all.count(
                 "text_encoders.clip_g.transformer.text_model.embeddings.token_embedding."
                 "weight")
                 ? "text_encoder_3"
                 : "text_encoder_2";
    c.className = "T5EncoderModel";
    c.config = {{"architectures", {c.className}},
                {"model_type", "t5"},
                {"vocab_size", vocab},
                {"d_model", dModel},
                {"d_kv", inner / heads},
                {"d_ff", dFf},
                {"num_heads", heads},
                {"num_layers", layers},
                {"relative_attention_num_buckets", buckets},
                {"relative_attention_max_distance", 128},
                {"feed_forward_proj", gated ? "gated-gelu" : "relu"},
                {"dense_act_fn", gated ? "gelu_new" : "relu"},
                {"is_gated_act", gated},
                {"layer_norm_epsilon", 1e-6},
                {"dropout_rate", 0.0},
                {"is_encoder_decoder", false},
                {"use_cache", false},
                {"pad_token_id", 0},
                {"eos_token_id", 1}};
    c.description = "T5 encoder (T5EncoderModel, " +
                    std::string(gated ? "gated-gelu, v1.1 style" : "relu, v1.0 style") +
                    "), transformers keys" +
                    (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
                    std::to_string(layers) + " layers, d_model " + std::to_string(dModel) + ", " +
                    std::to_string(heads) + " heads x " + std::to_string(inner / heads) +
                    ", d_ff " + std::to_string(dFf) + ", vocab " + std::to_string(vocab) + ", " +
                    k.dtypeName() + "; relative_attention_max_distance 128 assumed";
    return c;
}

}  // namespace

SingleFileLayout t5SingleFileLayout() {
    return {"T5 encoder (transformers keys)",
            {"text_encoders.t5xxl.transformer.", ""},
            {"shared.", "encoder.block.", "encoder.final_layer_norm.", "encoder.embed_tokens."},
            [](const WeightMap& all, const std::string& p) {
                return all.count(p + "encoder.block.0.layer.0.SelfAttention.q.weight") ||
                       (all.count(p + "encoder.final_layer_norm.weight") &&
                        (all.count(p + "shared.weight") ||
                         all.count(p + "encoder.embed_tokens.weight")));
            },
            convertT5};
}

}  // namespace hs
