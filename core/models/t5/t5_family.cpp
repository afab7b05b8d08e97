#include "models/t5/t5_family.h"

#include "models/common/weights.h"

namespace hs {

NamedTensors T5EncoderComponent::run(const NamedTensors& inputs, ProbeContext& probes) {
    const T5Config& cfg = model->config();
    checkInputKeys(inputs, {"in.input_ids", "in.attention_mask"}, "T5 encoder");
    const std::string expected =
        "[B, L] integer ids with 1 <= L <= " + std::to_string(kMaxPositions);
    auto ids = requireInput(inputs, "in.input_ids", {-1, -1}, expected);
    const int64_t B = ids.size(0), L = ids.size(1);
    if (B < 1 || L < 1 || L > kMaxPositions)
        throw InputError("input 'in.input_ids' has shape " + shapeText(ids.sizes()) +
                         ", expected " + expected);
    if (ids.is_floating_point() || ids.scalar_type() == torch::kBool)
        throw InputError("input 'in.input_ids' must hold integer ids, got dtype " +
                         std::string(c10::toString(ids.scalar_type())));
    torch::NoGradGuard noGrad;
    ids = ids.to(torch::kCPU, torch::kInt64).contiguous();
    const auto bad = (ids < 0).logical_or(ids >= cfg.vocabSize).nonzero();
    if (bad.size(0) > 0) {
        const int64_t b = bad[0][0].item<int64_t>(), l = bad[0][1].item<int64_t>();
        throw InputError("input 'in.input_ids' holds id " +
                         std::to_string(ids[b][l].item<int64_t>()) + " at [" + std::to_string(b) +
                         ", " + std::to_string(l) + "], outside the vocabulary [0, " +
                         std::to_string(cfg.vocabSize) + ")");
    }
    torch::Tensor mask;
    if (inputs.count("in.attention_mask")) {
        const std::string shape = "[" + std::to_string(B) + ", " + std::to_string(L) + "]";
        mask = checkInput("in.attention_mask", inputs.at("in.attention_mask"), {B, L}, shape)
                   .to(probes.device(), torch::kFloat32);
    }
    NamedTensors out;
    out["out.last_hidden_state"] =
        model->forward(ids.to(probes.device()), mask, probes).to(torch::kFloat32);
    return out;
}

TextEncoding T5EncoderComponent::encode(const torch::Tensor& ids, const torch::Tensor& mask,
                                         ProbeContext& probes) {
    return {model->forward(ids, mask, probes), torch::Tensor(), {}};
}

Family t5EncoderFamily() {
    Family f;
    f.name = "T5 encoder";
    f.classNames = {"T5EncoderModel", "T5ForConditionalGeneration"};
    f.role = Role::TextEncoder2;
    f.defaultComponent = "text_encoder_2";
    f.tokenizer = {"T5TokenizerFast", "T5 tokenizer", {"spiece.model"}, ""};
    f.io = "in.input_ids [, in.attention_mask] -> out.last_hidden_state";
    f.blockStems = {"encoder.block."};
    f.build = [](const ComponentSource& s, const std::string& component) {
        return std::make_shared<T5EncoderComponent>(
            T5EncoderModel(t5ConfigFromJson(s.config), component));
    };
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
