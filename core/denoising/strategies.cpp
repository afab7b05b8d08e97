// The pipeline shapes that ship with Halfscope: adding one is a strategy in this folder and a
// line here.
#include "denoising/flux_strategy.h"
#include "denoising/strategy.h"

namespace hs {

void registerBuiltinStrategies(StrategyRegistry& r) {
    r.add({"Flux",
           {"FluxPipeline", "HalfscopeDemoPipeline"},
           makeFluxStrategy,
           {"FluxTransformer2DModel"}});
}

}  // namespace hs
