#include "denoising/qwenimage_text.h"

#include <algorithm>

#include "base/pipeline_error.h"
#include "denoising/token_bounds.h"
#include "models/roles.h"
#include "text/qwen_tokenizer.h"

namespace hs {

const char* const kQwenImagePromptTemplate =
    "<|im_start|>system\nDescribe the image by detailing the color, shape, size, texture, "
    "quantity, text, spatial relationships of the objects and background:<|im_end|>\n"
    "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n";

std::string qwenImageTemplated(const std::string& prompt) {
    std::string t = kQwenImagePromptTemplate;
    const size_t at = t.find("{}");
    return t.replace(at, 2, prompt);  // template.format(prompt)
}

namespace {

// tokenizer(txt, max_length=1024 + 34, padding=True, truncation=True); one prompt: no padding.
std::vector<int> templatedIds(const QwenImageText& text, const std::string& prompt) {
    return text.tokenizer->encode(qwenImageTemplated(prompt),
                                  size_t(kQwenImageTokenizerMaxLength + kQwenImageTemplateDrop));
}

}  // namespace

int64_t qwenImagePromptTokens(const QwenImageText& text, const std::string& prompt) {
    return std::max<int64_t>(int64_t(templatedIds(text, prompt).size()) - kQwenImageTemplateDrop,
                             0);
}

QwenImagePromptEmbeds qwenImagePromptEmbeds(const QwenImageText& text, const std::string& prompt,
                                            const torch::Device& device, ProbeContext& probes) {
    const int drop = kQwenImageTemplateDrop;
    std::vector<int> ids = templatedIds(text, prompt);
    QwenImagePromptEmbeds out;
    out.tokens = std::max<int64_t>(int64_t(ids.size()) - drop, 0);
    out.truncated = out.tokens > text.maxSequenceLength;
    // Causal attention: the first 34 + max_sequence_length states do not depend on later tokens.
    ids.resize(std::min(ids.size(), size_t(drop + text.maxSequenceLength)));
    out.templateTokens = int64_t(ids.size());
    checkTokenIds(ids, text.encoder->tokenTable().rows, "text_encoder");
    const auto input = torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kInt64)
                           .view({1, int64_t(ids.size())})
                           .to(device);         // [1, S]
    const auto mask = torch::ones_like(input);  // [1, S]
    // hidden_states[-1]: the last layer's output after the final norm (= last_hidden_state).
    auto states = text.encoder->encode(input, mask, probes).lastHiddenState;  // [1, S, D]
    // _extract_masked_hidden (every token is real), then [drop:].
    const int64_t kept = states.size(1) - drop;
    if (kept < 1)
        throw PipelineError("the Qwen-Image prompt template gave " +
                            std::to_string(states.size(1)) + " tokens, no more than the " +
                            std::to_string(drop) +
                            " that the pipeline drops: the tokenizer is not Qwen's");
    out.embeds = states.narrow(1, drop, kept).to(torch::kFloat32);  // [1, L, D]
    // The mask of ones encode_prompt makes, None when nothing is padding: one prompt never is.
    out.mask = torch::Tensor();
    return out;
}

}  // namespace hs
