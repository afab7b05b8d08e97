#pragma once
// The original (LDM / CompVis) layout of the KL autoencoder: FLUX's ae.safetensors (16 latent
// channels, no quant_conv), SD's VAE files and the first_stage_model.* part of an LDM checkpoint
// (4 channels, quant_conv and post_quant_conv). Converted to diffusers' AutoencoderKL keys as
// diffusers' convert_ldm_vae_checkpoint does; the architecture comes from the shapes
// (create_vae_diffusers_config_from_ldm reads it from the LDM yaml instead).
//
// The latent scaling is not in the file. It is assumed from the latent channels and the rest of
// the file, and the description says so:
//   16 channels: FLUX's scaling 0.3611, shift 0.1159 (SD3's 1.5305 / 0.0609 when the same file
//                holds an SD3 MMDiT);
//    4 channels: SD 1.x/2.x's 0.18215, no shift (SDXL's 0.13025 when the file holds SDXL's
//                conditioner.embedders.*).
#include "models/single_file.h"

namespace hs {

SingleFileLayout vaeLdmLayout();

}  // namespace hs
