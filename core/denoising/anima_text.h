#pragma once
// Anima's text path as diffusers' modular Anima blocks run it (AnimaTextEncoderStep +
// AnimaTextConditioningStep): the prompt's Qwen3 hidden states (padding zeroed) and its T5 ids
// go through the text conditioner, which gives the Cosmos transformer's text embeddings.
#include <torch/torch.h>

#include <string>

#include "numerics/probe.h"

namespace hs {

class TextEncoderComponent;
class QwenTokenizer;
class T5Tokenizer;
class AnimaTextConditionerComponent;

struct AnimaText {
    TextEncoderComponent* encoder = nullptr;
    const QwenTokenizer* tokenizer = nullptr;
    const T5Tokenizer* t5Tokenizer = nullptr;
    AnimaTextConditionerComponent* conditioner = nullptr;
    int maxSequenceLength = 512;  // both tokenizers truncate to this (the pipeline's default)
};

// `prompt` -> [1, max(L_t5, min_sequence_length), text_embed_dim] float32 on `device`.
// An empty prompt is one Qwen token (id 0) with mask 0, as the pipeline makes it: the
// conditioner's cross-attention then attends to nothing.
torch::Tensor animaPromptEmbeds(const AnimaText& text, const std::string& prompt,
                                const torch::Device& device, ProbeContext& probes);

}  // namespace hs
