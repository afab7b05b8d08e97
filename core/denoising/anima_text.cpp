#include "denoising/anima_text.h"

#include "denoising/token_bounds.h"
#include "families/anima/anima_family.h"
#include "models/roles.h"
#include "text/qwen_tokenizer.h"
#include "text/t5_tokenizer.h"

namespace hs {

namespace {

torch::Tensor row(const std::vector<int>& v, const torch::Device& device) {
    return torch::tensor(std::vector<int64_t>(v.begin(), v.end()), torch::kInt64)
        .view({1, int64_t(v.size())})
        .to(device);
}

}  // namespace

torch::Tensor animaPromptEmbeds(const AnimaText& text, const std::string& prompt,
                                const torch::Device& device, ProbeContext& probes) {
    const int L = text.maxSequenceLength;
    // Qwen: tokenizer(prompt, padding="longest", max_length=L, truncation=True), no special
    // tokens; one prompt needs no padding.
    std::vector<int> ids = text.tokenizer->encode(prompt, size_t(L));
    const bool empty = ids.empty();
    if (empty) ids = {0};
    checkTokenIds(ids, text.encoder->tokenTable().rows, "text_encoder");
    const auto qwenIds = row(ids, device);  // [1, S]
    const auto qwenMask = torch::full({1, qwenIds.size(1)}, empty ? 0 : 1,
                                      torch::TensorOptions().dtype(torch::kInt64).device(device));
    auto states = text.encoder->encode(qwenIds, qwenMask, probes).lastHiddenState;
    states = states.to(torch::kFloat32) * qwenMask.to(torch::kFloat32).unsqueeze(-1);  // [1, S, D]

    // T5: [ids..., </s>] cut to L with </s> kept last; one prompt needs no padding.
    std::vector<int> t5 = text.t5Tokenizer->encodePadded(prompt, L);
    const T5Tokenizer& tok = *text.t5Tokenizer;
    while (t5.size() > 1 && t5.back() == tok.padId() && t5.back() != tok.eosId()) t5.pop_back();

    checkTokenIds(t5, text.conditioner->model->config().targetVocabSize, "text conditioner");
    AnimaAdapterInputs in;
    in.sourceHiddenStates = states;
    in.targetInputIds = row(t5, device);                           // [1, L_t5]
    in.targetAttentionMask = torch::ones_like(in.targetInputIds);  // [1, L_t5]
    in.sourceAttentionMask = qwenMask;                             // [1, S]
    return text.conditioner->model->forward(in, probes).to(torch::kFloat32);
}

}  // namespace hs
