#include "families/qwen/qwen_family.h"

#include "models/common/weights.h"

namespace hs {

TextEncoding QwenTextComponent::encode(const torch::Tensor& ids, const torch::Tensor& mask,
                                       ProbeContext& probes) {
    QwenTextOutput o = model->forward(ids, mask, probes);
    return {o.lastHiddenState, torch::Tensor(), torch::Tensor(), std::move(o.hiddenStates)};
}

std::string qwenKeyPrefix(const WeightMap& weights, const nlohmann::json& config) {
    for (const char* p : {"", "model.", "model.language_model."})
        if (weights.count(std::string(p) + "embed_tokens.weight")) return p;
    const auto archs = cfgStringList(config, "architectures", {});
    const bool bare = !archs.empty() && (archs[0] == "Qwen3Model" || archs[0] == "Qwen2Model");
    return bare ? "" : "model.";
}

Family qwenTextFamily() {
    Family f = makeFamily<QwenTextComponent>(
        {"Qwen text encoder",
         {"Qwen3Model", "Qwen3ForCausalLM", "Qwen2Model", "Qwen2ForCausalLM",
          "Qwen2_5_VLForConditionalGeneration"},
         Role::TextEncoder,
         "text_encoder",
         "in.input_ids [, in.attention_mask] -> out.last_hidden_state, out.hidden_states.N",
         {"layers.", "model.layers.", "model.language_model.layers."}},
        [](const ComponentSource& s, const std::string& component) {
            return QwenTextModel(qwenConfigFromJson(s.config), component,
                                 qwenKeyPrefix(s.weights, s.config));
        });
    f.tokenizer = {"Qwen2Tokenizer", "Qwen tokenizer", {"merges.txt", "tokenizer.json"}, "qwen2"};
    f.ignoredKeys = [](const ComponentSource&) {
        // The language-model head (tied to embed_tokens in Qwen3-0.6B), Qwen2.5-VL's vision tower
        // in either layout, and the rotary tables some older files saved.
        return std::vector<std::string>{"lm_head.weight", "visual.*", "model.visual.*",
                                        "*rotary_emb.inv_freq"};
    };
    return f;
}

}  // namespace hs
