#pragma once
// Qwen-Image's text path as diffusers' QwenImagePipeline runs it (_get_qwen_prompt_embeds +
// encode_prompt): the prompt inside the chat template (a system line asking for a detailed
// description, the prompt as the user's turn, the assistant's turn opened), tokenized with
// truncation at tokenizer_max_length 1024 + 34 tokens, through the Qwen2.5-VL language model with
// its attention mask; the last hidden states (after the final norm) of the real tokens, the
// template's first 34 tokens dropped, cut to max_sequence_length; the mask carried to the
// transformer (None when every token is real, as encode_prompt leaves it).
#include <torch/torch.h>

#include <string>

#include "numerics/probe.h"

namespace hs {

class TextEncoderComponent;
class QwenTokenizer;

// QwenImagePipeline.prompt_template_encode and prompt_template_encode_start_idx.
extern const char* const kQwenImagePromptTemplate;  // "{}" stands for the prompt
constexpr int kQwenImageTemplateDrop = 34;
// QwenImagePipeline.tokenizer_max_length: the tokenizer truncates at this + 34 tokens, and
// check_inputs refuses a max_sequence_length above it.
constexpr int kQwenImageTokenizerMaxLength = 1024;

struct QwenImageText {
    TextEncoderComponent* encoder = nullptr;
    const QwenTokenizer* tokenizer = nullptr;
    int maxSequenceLength = 512;  // the pipeline's default
};

struct QwenImagePromptEmbeds {
    torch::Tensor embeds;        // [1, L, joint_attention_dim] float32, L <= maxSequenceLength
    torch::Tensor mask;          // [1, L] int64 (1 a token, 0 padding); undefined when all ones
    int64_t templateTokens = 0;  // tokens the encoder saw (template included, after truncation)
    int64_t tokens = 0;          // tokens after the 34 dropped, before the cut to max length
    bool truncated = false;      // tokens > maxSequenceLength: the cut removed some
};

// The templated text for `prompt`.
std::string qwenImageTemplated(const std::string& prompt);

// The tokens of `prompt` after the template's 34, as the tokenizer cuts them (at most
// 1024 + 34 - 34): more than maxSequenceLength means encode_prompt cuts the embeddings.
int64_t qwenImagePromptTokens(const QwenImageText& text, const std::string& prompt);

// `prompt` -> its embeddings and mask on `device`. The encoder sees only the first
// 34 + maxSequenceLength tokens: it is causal, so the states of the tokens kept are the same as
// over the 1058 tokens diffusers encodes, and the rest are cut anyway.
QwenImagePromptEmbeds qwenImagePromptEmbeds(const QwenImageText& text, const std::string& prompt,
                                            const torch::Device& device, ProbeContext& probes);

}  // namespace hs
