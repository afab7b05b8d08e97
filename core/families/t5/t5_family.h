#pragma once
// The T5 encoder family: transformers T5EncoderModel (FLUX.1's and SD3's text_encoder_2/3), and
// the encoder of a full T5ForConditionalGeneration checkpoint.
#include "models/module_component.h"
#include "families/t5/t5_encoder.h"

namespace hs {

class T5EncoderComponent : public TextModuleComponent<T5EncoderComponent, T5EncoderModel> {
public:
    using TextModuleComponent::TextModuleComponent;
    using TextEncoderComponent::encode;  // encode(ids), hidden by the override below
    // FluxPipeline encodes its padded prompt without a mask, Cosmos-Predict2 with one; no pooled
    // output.
    TextEncoding encode(const torch::Tensor& ids, const torch::Tensor& mask,
                        ProbeContext& probes) override;
    int64_t width() const override { return model->config().dModel; }
    TokenTable tokenTable() const override {
        return {model->config().vocabSize, -1, kMaxPositions};
    }
};

Family t5EncoderFamily();

}  // namespace hs
