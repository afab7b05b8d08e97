#include "models/flux/flux_family.h"

#include "models/flux/flux_run.h"

namespace hs {

NamedTensors FluxTransformerComponent::run(const NamedTensors& inputs, ProbeContext& probes) {
    return runFluxTransformer(model, inputs, probes);
}

Family fluxTransformerFamily() {
    Family f;
    f.name = "Flux transformer";
    f.classNames = {"FluxTransformer2DModel"};
    f.role = Role::Denoiser;
    f.defaultComponent = "transformer";
    f.io =
        "in.hidden_states, in.encoder_hidden_states, in.pooled_projections, in.timestep, "
        "in.guidance, in.img_ids, in.txt_ids -> out.sample";
    f.blockStems = {"transformer_blocks.", "single_transformer_blocks."};
    f.build = [](const ComponentSource& s, const std::string& component) {
        return std::make_shared<FluxTransformerComponent>(
            FluxTransformer(FluxConfig::fromJson(s.config), component));
    };
    return f;
}

}  // namespace hs
