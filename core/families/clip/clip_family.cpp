#include "families/clip/clip_family.h"

namespace hs {

TextEncoding ClipTextComponent::encode(const torch::Tensor& ids, const torch::Tensor& mask,
                                       ProbeContext& probes) {
    if (mask.defined() && mask.eq(0).any().item<bool>())
        throw InputError(
            "a CLIP text encoder attends every token up to the end token: it takes "
            "no padding mask");
    ClipTextOutput o = model->forward(ids, probes);
    return {o.lastHiddenState, o.poolerOutput, o.textEmbeds, std::move(o.hiddenStates)};
}

Family clipTextFamily() {
    Family f = makeFamily<ClipTextComponent>(
        {"CLIP text encoder",
         {"CLIPTextModel", "CLIPTextModelWithProjection", "CLIPModel"},
         Role::TextEncoder,
         "text_encoder",
         "in.input_ids -> out.last_hidden_state, out.pooler_output, out.text_embeds, "
         "out.hidden_states.N"},
        [](const ComponentSource& s, const std::string& component) {
            const bool projection = s.weights.count("text_projection.weight") > 0;
            return ClipTextModel(clipTextConfigFromJson(s.config, projection), component);
        });
    f.tokenizer = {
        "CLIPTokenizer", "CLIP tokenizer", {"vocab.json"}, "clip-l", [](const nlohmann::json& c) {
            // OpenCLIP (SD 2.x, SDXL's second encoder: gelu) pads with "!".
            return c.value("hidden_act", "") == "gelu" ? nlohmann::json{{"pad_token", "!"}}
                                                       : nlohmann::json();
        }};
    f.ignoredKeys = [](const ComponentSource& s) {
        std::vector<std::string> ignored{"text_model.embeddings.position_ids"};
        if (clipTextConfigFromJson(s.config).nestedInFullClip)
            ignored.insert(ignored.end(),
                           {"vision_model.*", "visual_projection.weight", "logit_scale"});
        return ignored;
    };
    return f;
}

}  // namespace hs
