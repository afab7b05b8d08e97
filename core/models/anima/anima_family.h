#pragma once
// The Anima text conditioner family: diffusers AnimaTextConditioner (Anima's LLM adapter, which
// turns Qwen3 hidden states and T5 token ids into the Cosmos transformer's text embeddings).
// Its role is Role::Adapter: it runs once per prompt, between the text encoder and the
// denoising loop.
#include "models/roles.h"
#include "models/anima/anima_adapter.h"
#include "models/common/named_tensors.h"
#include "models/registry.h"

namespace hs {

class AnimaTextConditionerComponent : public Component {
public:
    explicit AnimaTextConditionerComponent(AnimaTextConditioner m) : model(std::move(m)) {}
    // This family's component in `slot` for a strategy's attach() (null when empty).
    static AnimaTextConditionerComponent* in(const ComponentMap& c, const std::string& slot) {
        return componentOfKindIn<AnimaTextConditionerComponent>(c, slot, "an Anima text conditioner (AnimaTextConditioner)");
    }
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;

    AnimaTextConditioner model;
};

// Inputs (keys not starting with "in." are ignored):
//   in.source_hidden_states   [B, S, source_dim]  Qwen3 hidden states
//   in.target_input_ids       [B, L] integer ids in [0, target_vocab_size)  T5 token ids
//   in.target_attention_mask  [B, L] (optional; nonzero = a real token)
//   in.source_attention_mask  [B, S] (optional; a sample masked whole attends to nothing and
//                             gets zeros from that attention, as PyTorch >= 2.5's SDPA gives)
// Output: out.text_embeds [B, max(L, min_sequence_length), target_dim], float32. Throws
// InputError naming the key and the expected shape.
NamedTensors runAnimaTextConditioner(AnimaTextConditioner& model, const NamedTensors& inputs,
                                     ProbeContext& probes);
AnimaAdapterInputs animaInputsFrom(const AnimaAdapterConfig& config, const NamedTensors& inputs,
                                   const torch::Device& device);

Family animaTextConditionerFamily();

}  // namespace hs
