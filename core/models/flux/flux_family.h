#pragma once
// The Flux transformer family: diffusers FluxTransformer2DModel (FLUX.1 dev / schnell, the demo
// model's denoiser).
#include "models/roles.h"
#include "models/flux/flux_transformer.h"
#include "models/registry.h"

namespace hs {

class FluxTransformerComponent : public Component {
public:
    explicit FluxTransformerComponent(FluxTransformer m) : model(std::move(m)) {}
    // This family's component in `slot` for a strategy's attach() (null when empty).
    static FluxTransformerComponent* in(const ComponentMap& c, const std::string& slot) {
        return componentOfKindIn<FluxTransformerComponent>(c, slot, "a Flux transformer (FluxTransformer2DModel)");
    }
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;
    StreamedBlocks* streamedBlocks() override { return model.get(); }

    FluxTransformer model;
};

Family fluxTransformerFamily();

}  // namespace hs
