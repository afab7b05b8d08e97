#pragma once
// Runs a Flux transformer on named tensors (the golden files' and `halfscope-cli run-module`'s
// form).
#include "models/common/named_tensors.h"
#include "families/flux/flux_transformer.h"
#include "models/module_component.h"

namespace hs {

// Inputs (keys not starting with "in." are ignored; so is in.guidance without guidance_embeds):
//   in.hidden_states          [B, L_img, in_channels]
//   in.encoder_hidden_states  [B, L_txt, joint_attention_dim]
//   in.pooled_projections     [B, pooled_projection_dim]
//   in.timestep               [B] (or [1] / scalar, broadcast), sigma in [0, 1]
//   in.guidance               [B] (or [1] / scalar), required when guidance_embeds
//   in.img_ids                [L_img, n_axes] or legacy [B, L_img, n_axes] (first batch used)
//   in.txt_ids                [L_txt, n_axes] or legacy [B, L_txt, n_axes]
// Output: out.sample [B, L_img, patch_size^2 * out_channels], float32 (exact for any format).
// Throws InputError naming the key and the expected shape. Runs without autograd on the
// device of `probes`.
// The validated inputs of runFluxTransformer as a FluxInputs, on `device`.
FluxInputs fluxInputsFrom(const FluxConfig& config, const NamedTensors& inputs,
                          const torch::Device& device);
inline constexpr auto runFluxTransformer = &runForward<FluxTransformer, fluxInputsFrom>;

}  // namespace hs
