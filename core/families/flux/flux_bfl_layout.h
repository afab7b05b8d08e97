#pragma once
// Black Forest Labs' own Flux.1 layout (flux1-dev.safetensors, flux1-schnell.safetensors, and
// ComfyUI's saves of them under "model.diffusion_model."), converted to diffusers'
// FluxTransformer2DModel keys the way diffusers' convert_flux_transformer_checkpoint_to_diffusers
// does: fused q/k/v split into to_q/to_k/to_v (views), single blocks' fused linear1 split into
// q, k, v and proj_mlp (views), and the final modulation's shift-then-scale halves swapped into
// diffusers' scale-then-shift order (the one copy).
#include <vector>

#include "models/single_file.h"

namespace hs {

SingleFileLayout fluxBflLayout();

// The rotary split of a head: [16, 56, 56] for head_dim 128 (every released FLUX.1 model);
// other head dims are not in any release and not stored in the file, so they follow diffusers'
// tiny test models ([4, 4, 8] for 16): [d/4, d/4, d/2]. Throws ConfigError unless d is a
// multiple of 8 (each part must be even).
std::vector<int> fluxAxesDimsRopeFor(int headDim);

}  // namespace hs
