#include "families/t5/t5_family.h"

#include "models/common/weights.h"

namespace hs {

TextEncoding T5EncoderComponent::encode(const torch::Tensor& ids, const torch::Tensor& mask,
                                        ProbeContext& probes) {
    return {model->forward(ids, mask, probes), {}, {}, {}};
}

Family t5EncoderFamily() {
    Family f = makeFamily<T5EncoderComponent>(
        {"T5 encoder",
         {"T5EncoderModel", "T5ForConditionalGeneration"},
         Role::TextEncoder2,
         "text_encoder_2",
         "in.input_ids [, in.attention_mask] -> out.last_hidden_state",
         {"encoder.block."}},
        [](const ComponentSource& s, const std::string& component) {
            return T5EncoderModel(t5ConfigFromJson(s.config), component);
        });
    f.tokenizer = {"T5TokenizerFast", "T5 tokenizer", {"spiece.model"}, ""};
    f.ignoredKeys = [](const ComponentSource& s) {
        // transformers ties encoder.embed_tokens to shared and saves both in some releases.
        std::vector<std::string> ignored{"encoder.embed_tokens.weight"};
        if (t5ConfigFromJson(s.config).withDecoder)
            ignored.insert(ignored.end(), {"decoder.*", "lm_head.weight"});
        return ignored;
    };
    return f;
}

}  // namespace hs
