#pragma once
// The Qwen text encoder family: transformers Qwen3Model / Qwen3ForCausalLM (Anima's text
// encoder) and Qwen2Model / Qwen2ForCausalLM / the language model of
// Qwen2_5_VLForConditionalGeneration (Qwen-Image's text encoder; its visual tower and every
// lm_head are not loaded).
#include "models/module_component.h"
#include "families/qwen/qwen_text_model.h"

namespace hs {

class QwenTextComponent : public TextModuleComponent<QwenTextComponent, QwenTextModel> {
public:
    using TextModuleComponent::TextModuleComponent;
    using TextEncoderComponent::encode;  // encode(ids), hidden by the override below
    // Causal, with the padding mask [B, L] (1 token, 0 padding) that the Anima and Qwen-Image
    // pipelines pass; no pooled output.
    TextEncoding encode(const torch::Tensor& ids, const torch::Tensor& mask,
                        ProbeContext& probes) override;
    int64_t width() const override { return model->config().hiddenSize; }
    TokenTable tokenTable() const override {
        return {model->config().vocabSize, -1, model->config().maxPositions};
    }
};

// The key prefix of the decoder in `weights`: "" (Qwen3Model, Qwen2Model), "model."
// (*ForCausalLM, Qwen2.5-VL as released) or "model.language_model." (Qwen2.5-VL saved by
// transformers >= 4.52); found by its embed_tokens.weight, else the class's usual one.
std::string qwenKeyPrefix(const WeightMap& weights, const nlohmann::json& config);

Family qwenTextFamily();

}  // namespace hs
