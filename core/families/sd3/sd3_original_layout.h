#pragma once
// Stability AI's own MMDiT layout (sd3_medium.safetensors, sd3.5_large.safetensors,
// sd3.5_medium.safetensors, and ComfyUI's saves of them under "model.diffusion_model."), converted
// to diffusers' SD3Transformer2DModel keys the way diffusers'
// convert_sd3_transformer_checkpoint_to_diffusers does: joint_blocks.N.{x_block, context_block}
// with fused q/k/v split into to_q/to_k/to_v and add_q/k/v_proj (views), ln_q / ln_k to the
// qk-norms, x_block.attn2 to SD3.5's dual attention, and the (shift, scale) halves of the last
// block's context modulation and of the final layer's swapped into diffusers' (scale, shift)
// order (the two copies).
#include "models/single_file.h"

namespace hs {

SingleFileLayout sd3OriginalLayout();

}  // namespace hs
