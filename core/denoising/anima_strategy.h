#pragma once
// The Anima shape, as diffusers' modular Anima blocks (AnimaAutoBlocks, text-to-image) run it:
// the prompt's Qwen3 states and T5 ids through the text conditioner (anima_text.h); latents
// [1, C, 1, h, w] from the seed, flow-matching Euler steps over sigmas linspace(1, 1/N, N)
// shifted by the scheduler's shift (3.0), the Cosmos transformer called with t / 1000 and a
// zero padding mask; classifier-free guidance (4.0 by default) with the negative prompt ("" when
// none), conditional and unconditional calls apart as the guider makes them; decode of
// latents * latents_std + latents_mean with the Qwen-Image / Wan VAE.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeAnimaStrategy();

}  // namespace hs
