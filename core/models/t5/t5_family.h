#pragma once
// The T5 encoder family: transformers T5EncoderModel (FLUX.1's and SD3's text_encoder_2/3), and
// the encoder of a full T5ForConditionalGeneration checkpoint.
#include "models/module_component.h"
#include "models/t5/t5_encoder.h"

namespace hs {

// run-module: in.input_ids [B, L] integer, optional in.attention_mask [B, L] (1 token, 0 padding)
// -> out.last_hidden_state [B, L, D] float32.
class T5EncoderComponent : public ModuleComponent<T5EncoderComponent, T5EncoderModel,
                                                  runTextEncoder, TextEncoderComponent> {
public:
    using ModuleComponent::ModuleComponent;
    using TextEncoderComponent::encode;
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
