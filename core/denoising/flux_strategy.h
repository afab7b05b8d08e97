#pragma once
// The Flux shape, as diffusers' FluxPipeline runs it:
//   - FLUX.1 (a text_encoder_2): CLIP-L gives the pooled vector (pooler_output), T5 the token
//     sequence (max_sequence_length 512 for dev, 256 for schnell, txt_ids zeros); the guidance
//     scale goes into the transformer's guidance embedding (dev) or nowhere (schnell), and there
//     is no classifier-free guidance;
//   - one text encoder (the demo model): CLIP gives both, and guidance > 1 runs the conditional
//     and unconditional prompts as one batch of two.
// Both denoise 2x2-packed latents with flow-matching Euler steps (sigmas linspace(1, 1/N, N),
// mu from the image sequence length when the scheduler shifts dynamically), and the VAE decodes
// `latents / scaling_factor + shift_factor`.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeFluxStrategy();
// StrategyInfo::partMisfit: a VAE whose latents FLUX does not take, text encoders of the wrong
// width.
std::string fluxPartMisfit(const PartCheck& part);
// StrategyInfo::variantName: dev (guidance embedding) or schnell.
std::string fluxVariantName(const nlohmann::json& transformerConfig);

}  // namespace hs
