#pragma once
// The Qwen-Image transformer family: diffusers QwenImageTransformer2DModel (Qwen-Image's
// denoiser).
#include "models/module_component.h"
#include "families/qwenimage/qwenimage_transformer.h"

namespace hs {

// Inputs (keys not starting with "in." are ignored):
//   in.hidden_states                [B, F*hp*wp, in_channels]  2 x 2-packed latents
//   in.encoder_hidden_states        [B, L_txt, joint_attention_dim]
//   in.encoder_hidden_states_mask   [B, L_txt] (nonzero: a real token); absent: all attended
//   in.timestep                     [B], [1] or a scalar: the pipeline's t / 1000
//   in.img_shapes                   [B, 3] or [1, 3] integers (frames, hp, wp), one image size
//                                   for the whole batch (as diffusers' QwenEmbedRope uses it)
// Output: out.sample [B, F*hp*wp, patch_size^2 * out_channels], float32. Throws InputError naming
// the key and the expected shape. Runs without autograd on the device of `probes`.
QwenImageInputs qwenImageInputsFrom(const QwenImageConfig& config, const NamedTensors& inputs,
                                    const torch::Device& device);
inline constexpr auto runQwenImageTransformer =
    &runForward<QwenImageTransformer, qwenImageInputsFrom>;

class QwenImageTransformerComponent
    : public ModuleComponent<QwenImageTransformerComponent, QwenImageTransformer,
                             runQwenImageTransformer> {
public:
    using ModuleComponent::ModuleComponent;
};

Family qwenImageTransformerFamily();

}  // namespace hs
