#include "families/clip/clip_single_file.h"

#include <map>

namespace hs {

int clipHeadsFor(int64_t hidden) {
    if (hidden >= 256 && hidden % 64 == 0) return static_cast<int>(hidden / 64);
    if (hidden > 0 && hidden < 256 && hidden % 4 == 0) return 4;
    throw ConfigError("CLIP text width " + std::to_string(hidden) +
                      " is neither a multiple of 64 (>= 256) nor a test-sized width divisible by "
                      "4: cannot infer num_attention_heads");
}

namespace {

// The slot each prefix fills in its pipeline (SD3 / SDXL: CLIP-G is the second encoder).
const std::map<std::string, std::string>& clipSlots() {
    static const std::map<std::string, std::string> s{
        {"", "text_encoder"},
        {"cond_stage_model.transformer.", "text_encoder"},
        {"conditioner.embedders.0.transformer.", "text_encoder"},
        {"text_encoders.clip_l.transformer.", "text_encoder"},
        {"text_encoders.clip_g.transformer.", "text_encoder_2"}};
    return s;
}

ConvertedComponent convertClip(LayoutKeys& k, const WeightMap& /*all*/) {
    const std::string tok = "text_model.embeddings.token_embedding.weight";
    const torch::Tensor embed = k.peek(tok);  // [vocab, hidden]
    if (embed.dim() != 2)
        k.fail("tensor '" + k.fileKey(tok) + "' has shape " + shapeText(embed.sizes()) +
               ", expected [vocab, hidden]");
    const int64_t vocab = k.size(tok, 0), hidden = k.size(tok, 1);
    const int64_t positions = k.size("text_model.embeddings.position_embedding.weight", 0);
    const int layers = k.countBlocks("text_model.encoder.layers.", "layer");
    if (layers == 0) k.fail("no layers ('" + k.fileKey("text_model.encoder.layers.0.*") + "')");
    const int64_t intermediate = k.size("text_model.encoder.layers.0.mlp.fc1.weight", 0);
    int heads = 0;
    try {
        heads = clipHeadsFor(hidden);
    } catch (const ConfigError& e) {
        throw ConfigError(k.where() + e.what());
    }

    WeightMap w;
    k.takeIfPresent("text_model.embeddings.position_ids");  // an index buffer, rebuilt
    const int64_t projectionDim =
        k.has("text_projection.weight") ? k.matrixSize("text_projection.weight", 0) : hidden;
    torch::Tensor projection = k.takeIfPresent("text_projection.weight");  // [proj, hidden]
    if (projection.defined()) w["text_projection.weight"] = projection;
    for (const std::string& key : k.keys())
        if (key.rfind("text_model.", 0) == 0) w[key] = k.take(key);
    k.finish();

    const bool openClipWidth = hidden == 1024 || hidden == 1280;
    ConvertedComponent c{
        clipSlots().count(k.prefix()) ? clipSlots().at(k.prefix()) : "text_encoder",
        projection.defined() ? "CLIPTextModelWithProjection" : "CLIPTextModel",
        {},
        std::move(w)};
    c.config = {{"architectures", {c.className}},
                {"model_type", "clip_text_model"},
                {"vocab_size", vocab},
                {"hidden_size", hidden},
                {"intermediate_size", intermediate},
                {"num_attention_heads", heads},
                {"num_hidden_layers", layers},
                {"max_position_embeddings", positions},
                {"hidden_act", openClipWidth ? "gelu" : "quick_gelu"},
                {"layer_norm_eps", 1e-5},
                {"projection_dim", projectionDim},
                {"bos_token_id", 0},
                {"eos_token_id", 2},
                {"pad_token_id", 1}};
    c.description = "CLIP text encoder (" + c.className + "), transformers keys" +
                    (k.prefix().empty() ? std::string() : " under " + k.prefix()) + ", " +
                    std::to_string(layers) + " layers, width " + std::to_string(hidden) + ", " +
                    k.dtypeName() + "; assumed: " + std::to_string(heads) + " heads (" +
                    (hidden >= 256 ? "head dim 64" : "test-sized width") + "), " +
                    (openClipWidth ? "gelu" : "quick_gelu") + ", argmax pooling";
    return c;
}

}  // namespace

SingleFileLayout clipSingleFileLayout() {
    std::vector<std::string> prefixes;
    for (const auto& kv : clipSlots())
        if (!kv.first.empty()) prefixes.push_back(kv.first);
    prefixes.push_back("");
    return {"CLIP text encoder (transformers keys)",
            prefixes,
            {"text_model.", "text_projection."},
            markerKeys({"text_model.embeddings.token_embedding.weight"}),
            convertClip};
}

}  // namespace hs
