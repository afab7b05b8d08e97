#pragma once
// The Stable Diffusion 3 shape, as diffusers' StableDiffusion3Pipeline runs SD3 and SD3.5:
//   - the prompt: CLIP-L and OpenCLIP-bigG (both with projection) give their penultimate hidden
//     states (hidden_states[-2]) [B, 77, 768 + 1280], zero-padded to T5's width and followed by
//     T5-XXL's last hidden state [B, 256, 4096] (zeros [B, 77, 4096] without a T5), and their
//     projected pooled vectors concatenated [B, 768 + 1280];
//   - classifier-free guidance as one batch [uncond, cond] when guidance > 1 (an empty negative
//     prompt is the encoding of "");
//   - [1, 16, H/8, W/8] latents denoised with flow-matching Euler steps (the default schedule,
//     shifted by the scheduler config's shift, 3.0), the transformer taking t = sigma * 1000;
//   - the VAE decodes `latents / scaling_factor + shift_factor`.
#include "denoising/strategy.h"

namespace hs {

std::unique_ptr<DenoisingStrategy> makeSd3Strategy();
// StrategyInfo::partMisfit: a VAE whose latents the transformer does not take, text encoders
// whose widths do not fill joint_attention_dim / pooled_projection_dim, a CLIP without projection
// or in the other CLIP's place (text_encoder is the narrower CLIP-L, text_encoder_2 bigG).
std::string sd3PartMisfit(const PartCheck& part);
// StrategyInfo::slotTakes: CLIPs in text_encoder and text_encoder_2, a T5 in text_encoder_3.
bool sd3SlotTakes(const std::string& slot, const nlohmann::json& partConfig);

}  // namespace hs
