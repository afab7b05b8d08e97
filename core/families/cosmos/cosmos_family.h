#pragma once
// The Cosmos transformer family: diffusers CosmosTransformer3DModel (Cosmos-Predict2 2B / 14B
// text-to-image, Anima's denoiser).
#include "families/cosmos/cosmos_transformer.h"
#include "models/module_component.h"

namespace hs {

// Inputs (keys not starting with "in." are ignored):
//   in.hidden_states          [B, in_channels, T, H, W]  (T, H, W multiples of patch_size, each
//                             patched size at most max(max_size / patch_size))
//   in.timestep               [B], [1] or a scalar
//   in.encoder_hidden_states  [B, L_txt, text_embed_dim]
//   in.padding_mask           [1, 1, h, w] (concat_padding_mask only; absent: zeros)
// Output: out.sample [B, out_channels, T, H, W], float32. Throws InputError naming the key and
// the expected shape. Runs without autograd on the device of `probes`.
CosmosInputs cosmosInputsFrom(const CosmosConfig& config, const NamedTensors& inputs,
                              const torch::Device& device);
inline constexpr auto runCosmosTransformer = &runForward<CosmosTransformer, cosmosInputsFrom>;

class CosmosTransformerComponent
    : public ModuleComponent<CosmosTransformerComponent, CosmosTransformer, runCosmosTransformer> {
public:
    using ModuleComponent::ModuleComponent;
};

Family cosmosTransformerFamily();

}  // namespace hs
