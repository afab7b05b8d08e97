#pragma once
// The original Wan layout of the Wan 2.1 / Qwen-Image VAE (the Wan repository's vae.py, what
// ComfyUI's wan_2.1_vae.safetensors and qwen_image_vae.safetensors hold): conv1 / conv2 for
// quant_conv / post_quant_conv, encoder/decoder conv1 and head.0 / head.2, middle.0-2, residual
// blocks as residual.0 (norm), .2 (conv), .3 (norm), .6 (conv) and shortcut, and the levels as
// flat encoder.downsamples.N / decoder.upsamples.N lists. Converted to diffusers' keys as
// diffusers' convert_wan_vae_to_diffusers does, for any number of levels and resnets; the
// architecture comes from the shapes.
//
// The file stores no latents_mean / latents_std: a 16-channel file gets diffusers' defaults
// (Wan 2.1's statistics, which Qwen-Image's VAE keeps), and the description says so; another
// channel count is a ConfigError naming latents_mean.
#include "models/single_file.h"

namespace hs {

SingleFileLayout wanVaeOriginalLayout();

}  // namespace hs
