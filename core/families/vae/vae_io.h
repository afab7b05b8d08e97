#pragma once
// The golden-file / `halfscope-cli run-module` entry point of the VAE.
#include "models/common/named_tensors.h"
#include "families/vae/autoencoder_kl.h"

namespace hs {

// in.z [B, latent_channels, h, w] (decoder-space latents) -> out.decode.sample [B, out_ch, H, W];
// in.x [B, in_channels, H, W] -> out.encode.mean, out.encode.logvar [B, latent_channels, h, w].
// Either input or both; keys not starting with "in." are ignored. Outputs are float32.
// Throws InputError naming the key and the expected shape for a missing or mis-shaped input
// (channel count of the config, spatial size a multiple of 2^(levels - 1) for in.x).
NamedTensors runAutoencoderKL(AutoencoderKL& model, const NamedTensors& inputs,
                              ProbeContext& probes);

}  // namespace hs
