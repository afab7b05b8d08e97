#pragma once
// The Flux transformer family: diffusers FluxTransformer2DModel (FLUX.1 dev / schnell, the demo
// model's denoiser).
#include "families/flux/flux_run.h"
#include "families/flux/flux_transformer.h"
#include "models/module_component.h"

namespace hs {

class FluxTransformerComponent
    : public ModuleComponent<FluxTransformerComponent, FluxTransformer, runFluxTransformer> {
public:
    using ModuleComponent::ModuleComponent;
};

Family fluxTransformerFamily();

}  // namespace hs
