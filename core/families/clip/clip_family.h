#pragma once
// The CLIP text encoder family: transformers CLIPTextModel, CLIPTextModelWithProjection and the
// text tower of a full CLIPModel checkpoint.
#include "families/clip/clip_text_model.h"
#include "models/module_component.h"

namespace hs {

class ClipTextComponent : public TextModuleComponent<ClipTextComponent, ClipTextModel> {
public:
    using TextModuleComponent::TextModuleComponent;
    using TextEncoderComponent::encode;  // encode(ids), hidden by the override below
    // Causal attention up to the end token, no padding mask: a mask with padding is refused.
    TextEncoding encode(const torch::Tensor& ids, const torch::Tensor& mask,
                        ProbeContext& probes) override;
    int64_t width() const override { return model->config().hiddenSize; }
    int64_t projectionWidth() const override {
        return model->config().withProjection ? model->config().projectionDim : 0;
    }
    TokenTable tokenTable() const override {
        const int64_t positions = model->config().maxPositionEmbeddings;
        return {model->config().vocabSize, positions, positions};
    }
};

Family clipTextFamily();

}  // namespace hs
