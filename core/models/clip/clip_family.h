#pragma once
// The CLIP text encoder family: transformers CLIPTextModel, CLIPTextModelWithProjection and the
// text tower of a full CLIPModel checkpoint.
#include "models/clip/clip_text_model.h"
#include "models/roles.h"

namespace hs {

class ClipTextComponent : public TextEncoderComponent {
public:
    explicit ClipTextComponent(ClipTextModel m) : model(std::move(m)) {}
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;
    using TextEncoderComponent::encode;
    // Causal attention up to the end token, no padding mask: a mask with padding is refused.
    TextEncoding encode(const torch::Tensor& ids, const torch::Tensor& mask,
                        ProbeContext& probes) override;
    int64_t width() const override { return model->config().hiddenSize; }
    int64_t projectionWidth() const override {
        return model->config().withProjection ? model->config().projectionDim : 0;
    }
    TokenTable tokenTable() const override {
        return {model->config().vocabSize, model->config().maxPositionEmbeddings};
    }

    ClipTextModel model;
};

Family clipTextFamily();

}  // namespace hs
