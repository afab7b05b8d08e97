#pragma once
// The Cosmos transformer family: diffusers CosmosTransformer3DModel (Cosmos-Predict2 2B / 14B
// text-to-image, Anima's denoiser).
#include "models/roles.h"
#include "models/common/named_tensors.h"
#include "models/cosmos/cosmos_transformer.h"
#include "models/registry.h"

namespace hs {

class CosmosTransformerComponent : public Component {
public:
    explicit CosmosTransformerComponent(CosmosTransformer m) : model(std::move(m)) {}
    // This family's component in `slot` for a strategy's attach() (null when empty).
    static CosmosTransformerComponent* in(const ComponentMap& c, const std::string& slot) {
        return componentOfKindIn<CosmosTransformerComponent>(c, slot, "a Cosmos transformer (CosmosTransformer3DModel)");
    }
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;
    StreamedBlocks* streamedBlocks() override { return model.get(); }

    CosmosTransformer model;
};

// Inputs (keys not starting with "in." are ignored):
//   in.hidden_states          [B, in_channels, T, H, W]  (T, H, W multiples of patch_size, each
//                             patched size at most max(max_size / patch_size))
//   in.timestep               [B], [1] or a scalar
//   in.encoder_hidden_states  [B, L_txt, text_embed_dim]
//   in.padding_mask           [1, 1, h, w] (concat_padding_mask only; absent: zeros)
// Output: out.sample [B, out_channels, T, H, W], float32. Throws InputError naming the key and
// the expected shape. Runs without autograd on the device of `probes`.
NamedTensors runCosmosTransformer(CosmosTransformer& model, const NamedTensors& inputs,
                                  ProbeContext& probes);
CosmosInputs cosmosInputsFrom(const CosmosConfig& config, const NamedTensors& inputs,
                              const torch::Device& device);

Family cosmosTransformerFamily();

}  // namespace hs
