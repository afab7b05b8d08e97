#pragma once
// The Anima text conditioner family: diffusers AnimaTextConditioner (Anima's LLM adapter, which
// turns Qwen3 hidden states and T5 token ids into the Cosmos transformer's text embeddings).
// Its role is Role::Adapter: it runs once per prompt, between the text encoder and the
// denoising loop.
#include "families/anima/anima_adapter.h"
#include "models/module_component.h"

namespace hs {

// Inputs (keys not starting with "in." are ignored):
//   in.source_hidden_states   [B, S, source_dim]  Qwen3 hidden states
//   in.target_input_ids       [B, L] integer ids in [0, target_vocab_size)  T5 token ids
//   in.target_attention_mask  [B, L] (optional; nonzero = a real token)
//   in.source_attention_mask  [B, S] (optional; a sample masked whole attends to nothing and
//                             gets zeros from that attention, as PyTorch >= 2.5's SDPA gives)
// Output: out.text_embeds [B, max(L, min_sequence_length), target_dim], float32. Throws
// InputError naming the key and the expected shape.
AnimaAdapterInputs animaInputsFrom(const AnimaAdapterConfig& config, const NamedTensors& inputs,
                                   const torch::Device& device);
inline constexpr char kOutTextEmbeds[] = "out.text_embeds";
inline constexpr auto runAnimaTextConditioner =
    &runForward<AnimaTextConditioner, animaInputsFrom, kOutTextEmbeds>;

class AnimaTextConditionerComponent
    : public ModuleComponent<AnimaTextConditionerComponent, AnimaTextConditioner,
                             runAnimaTextConditioner> {
public:
    using ModuleComponent::ModuleComponent;
};

Family animaTextConditionerFamily();

}  // namespace hs
