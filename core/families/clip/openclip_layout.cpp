#include "families/clip/openclip_layout.h"

#include <map>

#include "families/clip/clip_single_file.h"

namespace hs {

namespace {

const std::string kSd2Prefix = "cond_stage_model.model.";

// The slot each prefix fills: SD 2.x's only encoder, SDXL's second, the refiner's only one
// (which diffusers' StableDiffusionXLImg2ImgPipeline also calls text_encoder_2).
const std::map<std::string, std::string>& openClipSlots() {
    static const std::map<std::string, std::string> s{
        {kSd2Prefix, "text_encoder"},
        {"conditioner.embedders.1.model.", "text_encoder_2"},
        {"conditioner.embedders.0.model.", "text_encoder_2"}};
    return s;
}

// nn.MultiheadAttention's fused in_proj ([3 width, width] weight, [3 width] bias) split into
// row views q, k, v.
void splitInProj(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to,
                 int64_t width) {
    for (const char* p : {"weight", "bias"}) {
        const std::string key = from + "in_proj_" + p;
        const torch::Tensor fused = k.take(key);
        if (fused.dim() < 1 || fused.size(0) != 3 * width)
            k.fail("tensor '" + k.fileKey(key) + "' has shape " + shapeText(fused.sizes()) +
                   ", expected " + std::to_string(3 * width) + " rows (q, k, v of width " +
                   std::to_string(width) + ")");
        const char* names[] = {"q_proj.", "k_proj.", "v_proj."};
        for (int i = 0; i < 3; ++i) w[to + names[i] + p] = fused.narrow(0, i * width, width);
    }
}

void convertResblock(LayoutKeys& k, WeightMap& w, int i, int64_t width) {
    const std::string r = "transformer.resblocks." + std::to_string(i) + ".";
    const std::string d = "text_model.encoder.layers." + std::to_string(i) + ".";
    splitInProj(k, w, r + "attn.", d + "self_attn.", width);
    k.movePair(w, r + "attn.out_proj", d + "self_attn.out_proj");
    k.movePair(w, r + "ln_1", d + "layer_norm1");
    k.movePair(w, r + "ln_2", d + "layer_norm2");
    k.movePair(w, r + "mlp.c_fc", d + "mlp.fc1");
    k.movePair(w, r + "mlp.c_proj", d + "mlp.fc2");
}

// The resblock SD 2.x does not run: taken so that finish() accepts the file, then dropped.
void dropResblock(LayoutKeys& k, int i) {
    const std::string r = "transformer.resblocks." + std::to_string(i) + ".";
    for (const char* part :
         {"attn.in_proj", "attn.out_proj", "ln_1", "ln_2", "mlp.c_fc", "mlp.c_proj"}) {
        for (const char* p : {"weight", "bias"}) {
            const std::string sep = std::string(part) == "attn.in_proj" ? "_" : ".";
            k.take(r + part + sep + p);
        }
    }
}

std::string towerName(int64_t width) {
    if (width == 1024) return "ViT-H";
    if (width == 1280) return "ViT-bigG";
    return "width " + std::to_string(width);
}

ConvertedComponent convertOpenClip(LayoutKeys& k, const WeightMap& /*all*/) {
    const torch::Tensor embed = k.peek("token_embedding.weight");  // [vocab, width]
    if (embed.dim() != 2)
        k.fail("tensor '" + k.fileKey("token_embedding.weight") + "' has shape " +
               shapeText(embed.sizes()) + ", expected [vocab, width]");
    const int64_t vocab = k.size("token_embedding.weight", 0);
    const int64_t width = k.size("token_embedding.weight", 1);
    const torch::Tensor positions = k.peek("positional_embedding");  // [positions, width]
    if (positions.dim() != 2 || positions.size(1) != width || positions.size(0) < 1)
        k.fail("tensor '" + k.fileKey("positional_embedding") + "' has shape " +
               shapeText(positions.sizes()) + ", expected [positions, " + std::to_string(width) +
               "]");
    const int layers = k.countBlocks("transformer.resblocks.", "resblock");
    const bool sd2 = k.prefix() == kSd2Prefix;
    if (layers < (sd2 ? 2 : 1))
        k.fail("no resblocks ('" + k.fileKey("transformer.resblocks.0.*") + "')" +
               (sd2 ? " beyond the last, which SD 2.x does not run" : ""));
    const int kept = sd2 ? layers - 1 : layers;
    const int64_t intermediate = k.size("transformer.resblocks.0.mlp.c_fc.weight", 0);
    const int64_t projectionDim = sd2 ? width : k.size("text_projection", 1);
    int heads = 0;
    try {
        heads = clipHeadsFor(width);
    } catch (const ConfigError& e) {
        throw ConfigError(k.where() + e.what());
    }

    WeightMap w;
    w["text_model.embeddings.token_embedding.weight"] = k.take("token_embedding.weight");
    w["text_model.embeddings.position_embedding.weight"] = k.take("positional_embedding");
    for (int i = 0; i < kept; ++i) convertResblock(k, w, i, width);
    if (sd2) dropResblock(k, layers - 1);
    k.movePair(w, "ln_final", "text_model.final_layer_norm");
    // text_projection: x @ P with P [width, proj]; transformers' Linear holds P^T [proj, width].
    // SD 2.x's CLIPTextModel has none; SDXL's pooled embedding needs it.
    torch::Tensor projection =
        sd2 ? k.takeIfPresent("text_projection") : k.take("text_projection", 2);
    if (!sd2) w["text_projection.weight"] = projection.t();
    k.takeIfPresent("logit_scale");  // contrastive temperature: no part of the text tower
    k.takeIfPresent("attn_mask");    // the causal mask, rebuilt by the model
    k.finish();

    ConvertedComponent c{
        openClipSlots().count(k.prefix()) ? openClipSlots().at(k.prefix()) : "text_encoder",
        sd2 ? "CLIPTextModel" : "CLIPTextModelWithProjection",
        {},
        std::move(w)};
    c.config = {{"architectures", {c.className}},
                {"model_type", "clip_text_model"},
                {"vocab_size", vocab},
                {"hidden_size", width},
                {"intermediate_size", intermediate},
                {"num_attention_heads", heads},
                {"num_hidden_layers", kept},
                {"max_position_embeddings", positions.size(0)},
                {"hidden_act", "gelu"},
                {"layer_norm_eps", 1e-5},
                {"projection_dim", projectionDim},
                {"bos_token_id", 0},
                {"eos_token_id", 2},
                {"pad_token_id", 1}};
    std::string d = "OpenCLIP text encoder (" + c.className + "), " + towerName(width) + " under " +
                    k.prefix() + ": ";
    if (sd2)
        d += "SD 2.x form, " + std::to_string(kept) + " of " + std::to_string(layers) +
             " layers (SD 2.x conditions on the penultimate layer: as in diffusers' SD 2 "
             "text_encoder config the last resblock and text_projection are left out)";
    else
        d += std::to_string(layers) + " layers, projection " + std::to_string(projectionDim);
    d += ", width " + std::to_string(width) + ", " + k.dtypeName() +
         "; assumed: " + std::to_string(heads) + " heads (" +
         (width >= 256 ? "head dim 64" : "test-sized width") + "), gelu, argmax pooling";
    c.description = d;
    return c;
}

}  // namespace

SingleFileLayout openClipLayout() {
    std::vector<std::string> prefixes;
    for (const auto& kv : openClipSlots()) prefixes.push_back(kv.first);
    // Everything of the text tower; anything else under the prefix (a vision tower) is not ours.
    return {"OpenCLIP text encoder (SD 2.x / SDXL layout)",
            prefixes,
            {"token_embedding.", "positional_embedding", "transformer.", "ln_final.",
             "text_projection", "logit_scale", "attn_mask"},
            markerKeys({"token_embedding.weight", "transformer.resblocks.0.attn.in_proj_weight"}),
            convertOpenClip};
}

}  // namespace hs
