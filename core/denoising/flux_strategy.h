#pragma once
// The Flux shape (diffusers FluxPipeline, and the demo model stored like one): a CLIP text
// encoder gives the pooled text vector (and, without a second encoder, the token sequence too),
// a Flux transformer denoises 2x2-packed latents with flow-matching Euler steps, classifier-free
// guidance runs the conditional and unconditional prompts as one batch of two, and the VAE
// decodes `latents / scaling_factor + shift_factor`.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeFluxStrategy();

}  // namespace hs
