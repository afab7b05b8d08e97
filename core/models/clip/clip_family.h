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
    TextEncoding encode(const torch::Tensor& ids, ProbeContext& probes) override;
    int64_t width() const override { return model->config().hiddenSize; }

    ClipTextModel model;
};

Family clipTextFamily();

}  // namespace hs
