#include "families/anima/anima_family.h"

namespace hs {

namespace {

// An optional [B, n] mask: integer, bool or floating. A sample masked whole attends to nothing
// (zeros, see maskedAttention).
torch::Tensor optionalMask(const NamedTensors& inputs, const std::string& key, int64_t B,
                           int64_t n) {
    auto it = inputs.find(key);
    if (it == inputs.end()) return {};
    const std::string expected = "[" + std::to_string(B) + ", " + std::to_string(n) + "]";
    return checkInput(key, it->second, {B, n}, expected);
}

}  // namespace

AnimaAdapterInputs animaInputsFrom(const AnimaAdapterConfig& c, const NamedTensors& inputs,
                                   const torch::Device& device) {
    checkInputKeys(inputs,
                   {"in.source_hidden_states", "in.target_input_ids", "in.target_attention_mask",
                    "in.source_attention_mask"},
                   "AnimaTextConditioner");
    AnimaAdapterInputs in;
    in.sourceHiddenStates = requireInput(inputs, "in.source_hidden_states", {-1, -1, c.sourceDim},
                                         "[B, S, " + std::to_string(c.sourceDim) + "]");
    const int64_t B = in.sourceHiddenStates.size(0), S = in.sourceHiddenStates.size(1);
    const std::string b = std::to_string(B);
    if (S < 1) throw InputError("input 'in.source_hidden_states' has no tokens");
    in.targetInputIds = requireInput(inputs, "in.target_input_ids", {B, -1}, "[" + b + ", L]");
    const int64_t L = in.targetInputIds.size(1);
    if (in.targetInputIds.is_floating_point() || L < 1)
        throw InputError("input 'in.target_input_ids' must be [" + b +
                         ", L] integer token ids, L >= 1");
    if (in.targetInputIds.numel() > 0) {
        const int64_t lo = in.targetInputIds.min().item<int64_t>(),
                      hi = in.targetInputIds.max().item<int64_t>();
        if (lo < 0 || hi >= c.targetVocabSize)
            throw InputError("input 'in.target_input_ids' holds ids " + std::to_string(lo) + ".." +
                             std::to_string(hi) + ", outside 0.." +
                             std::to_string(c.targetVocabSize - 1) + " (target_vocab_size)");
    }
    in.targetInputIds = in.targetInputIds.to(torch::kInt64);
    in.targetAttentionMask = optionalMask(inputs, "in.target_attention_mask", B, L);
    in.sourceAttentionMask = optionalMask(inputs, "in.source_attention_mask", B, S);
    for (torch::Tensor* t : {&in.sourceHiddenStates, &in.targetInputIds, &in.targetAttentionMask,
                             &in.sourceAttentionMask}) {
        if (t->defined()) *t = t->to(device);
    }
    return in;
}

Family animaTextConditionerFamily() {
    return makeFamily<AnimaTextConditionerComponent, AnimaAdapterConfig>(
        {"Anima text conditioner",
         {"AnimaTextConditioner"},
         Role::Adapter,
         "text_conditioner",
         "in.source_hidden_states, in.target_input_ids, in.target_attention_mask, "
         "in.source_attention_mask -> out.text_embeds"});
}

}  // namespace hs
