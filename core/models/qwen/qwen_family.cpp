#include "models/qwen/qwen_family.h"

#include "models/common/weights.h"

namespace hs {

namespace {

// in.input_ids checked against the vocabulary and max_position_embeddings: [B, L] int64 on the
// CPU.
torch::Tensor checkedIds(const NamedTensors& inputs, const QwenConfig& cfg) {
    const std::string expected =
        "[B, L] integer ids with 1 <= L <= " + std::to_string(cfg.maxPositions);
    auto ids = requireInput(inputs, "in.input_ids", {-1, -1}, expected);
    if (ids.size(0) < 1 || ids.size(1) < 1 || ids.size(1) > cfg.maxPositions)
        throw InputError("input 'in.input_ids' has shape " + shapeText(ids.sizes()) +
                         ", expected " + expected);
    if (ids.is_floating_point() || ids.is_complex() || ids.scalar_type() == torch::kBool)
        throw InputError("input 'in.input_ids' must hold integer ids, got dtype " +
                         std::string(c10::toString(ids.scalar_type())));
    ids = ids.to(torch::kCPU, torch::kInt64).contiguous();
    const auto bad = (ids < 0).logical_or(ids >= cfg.vocabSize).nonzero();
    if (bad.size(0) > 0) {
        const int64_t b = bad[0][0].item<int64_t>(), l = bad[0][1].item<int64_t>();
        throw InputError("input 'in.input_ids' holds id " +
                         std::to_string(ids[b][l].item<int64_t>()) + " at [" + std::to_string(b) +
                         ", " + std::to_string(l) + "], outside the vocabulary [0, " +
                         std::to_string(cfg.vocabSize) + ")");
    }
    return ids;
}

}  // namespace

NamedTensors QwenTextComponent::run(const NamedTensors& inputs, ProbeContext& probes) {
    const QwenConfig& cfg = model->config();
    checkInputKeys(inputs, {"in.input_ids", "in.attention_mask"}, "Qwen text encoder");
    torch::NoGradGuard noGrad;
    const auto ids = checkedIds(inputs, cfg);  // [B, L]
    const int64_t B = ids.size(0), L = ids.size(1);
    torch::Tensor mask;
    if (inputs.count("in.attention_mask")) {
        const std::string shape = "[" + std::to_string(B) + ", " + std::to_string(L) + "] of 0/1";
        mask = checkInput("in.attention_mask", inputs.at("in.attention_mask"), {B, L}, shape)
                   .to(torch::kCPU);
        if (mask.ne(0).logical_and(mask.ne(1)).any().item<bool>())
            throw InputError("input 'in.attention_mask' must hold 0 (padding) or 1 (token), " +
                             shape);
        mask = mask.to(probes.device(), torch::kInt64);
    }
    const TextEncoding e = encode(ids.to(probes.device()), mask, probes);
    auto f32 = [](const torch::Tensor& t) { return t.to(torch::kFloat32); };
    NamedTensors out;
    out["out.last_hidden_state"] = f32(e.lastHiddenState);
    for (size_t i = 0; i < e.hiddenStates.size(); ++i)
        out["out.hidden_states." + std::to_string(i)] = f32(e.hiddenStates[i]);
    return out;
}

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
    Family f;
    f.name = "Qwen text encoder";
    f.classNames = {"Qwen3Model", "Qwen3ForCausalLM", "Qwen2Model", "Qwen2ForCausalLM",
                    "Qwen2_5_VLForConditionalGeneration"};
    f.role = Role::TextEncoder;
    f.defaultComponent = "text_encoder";
    f.tokenizer = {"Qwen2Tokenizer", "Qwen tokenizer", {"merges.txt", "tokenizer.json"},
                   "qwen2"};
    f.io = "in.input_ids [, in.attention_mask] -> out.last_hidden_state, out.hidden_states.N";
    f.blockStems = {"layers.", "model.layers.", "model.language_model.layers."};
    f.build = [](const ComponentSource& s, const std::string& component) {
        return std::make_shared<QwenTextComponent>(QwenTextModel(
            qwenConfigFromJson(s.config), component, qwenKeyPrefix(s.weights, s.config)));
    };
    f.ignoredKeys = [](const ComponentSource&) {
        // The language-model head (tied to embed_tokens in Qwen3-0.6B), Qwen2.5-VL's vision tower
        // in either layout, and the rotary tables some older files saved.
        return std::vector<std::string>{"lm_head.weight", "visual.*", "model.visual.*",
                                        "*rotary_emb.inv_freq"};
    };
    return f;
}

}  // namespace hs
