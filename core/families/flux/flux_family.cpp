#include "families/flux/flux_family.h"

namespace hs {

Family fluxTransformerFamily() {
    return makeFamily<FluxTransformerComponent, FluxConfig>(
        {"Flux transformer",
         {"FluxTransformer2DModel"},
         Role::Denoiser,
         "transformer",
         "in.hidden_states, in.encoder_hidden_states, in.pooled_projections, in.timestep, "
         "in.guidance, in.img_ids, in.txt_ids -> out.sample",
         {"transformer_blocks.", "single_transformer_blocks."}});
}

}  // namespace hs
