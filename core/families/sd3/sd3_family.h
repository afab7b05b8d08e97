#pragma once
// The SD3 transformer family: diffusers SD3Transformer2DModel (Stable Diffusion 3 / 3.5's
// denoiser).
#include "models/module_component.h"
#include "families/sd3/sd3_transformer.h"

namespace hs {

// Inputs (keys not starting with "in." are ignored):
//   in.hidden_states          [B, in_channels, H, W]  latents
//   in.encoder_hidden_states  [B, L_txt, joint_attention_dim]
//   in.pooled_projections     [B, pooled_projection_dim]
//   in.timestep               [B], [1] or a scalar: t in [0, 1000] as the SD3 pipeline passes it
// Output: out.sample [B, out_channels, H, W], float32. Throws InputError naming the key and the
// expected shape. Runs without autograd on the device of `probes`.
SD3Inputs sd3InputsFrom(const SD3Config& config, const NamedTensors& inputs,
                        const torch::Device& device);
inline constexpr auto runSD3Transformer = &runForward<SD3Transformer, sd3InputsFrom>;

class SD3TransformerComponent
    : public ModuleComponent<SD3TransformerComponent, SD3Transformer, runSD3Transformer> {
public:
    using ModuleComponent::ModuleComponent;

    const SD3Config& config() const { return model->config(); }

    // One model call as a denoising strategy makes it (StableDiffusion3Pipeline's
    // `self.transformer(hidden_states=latent_model_input, timestep=timestep,
    // encoder_hidden_states=prompt_embeds, pooled_projections=pooled_prompt_embeds)`):
    //   latents              [B, in_channels, H, W] (H, W multiples of patch_size, at most
    //                        pos_embed_max_size * patch_size)
    //   encoderHiddenStates  [B, L, joint_attention_dim]
    //   pooled               [B, pooled_projection_dim]
    //   timestep             [B] or [1] (broadcast): the scheduler's t in [0, 1000], not sigma
    // -> the velocity [B, out_channels, H, W] float32, on the device of `probes`. Without
    // autograd; throws InputError naming the argument ("in.hidden_states", ...) and the expected
    // shape.
    torch::Tensor predict(const torch::Tensor& latents, const torch::Tensor& encoderHiddenStates,
                          const torch::Tensor& pooled, const torch::Tensor& timestep,
                          ProbeContext& probes);
};

Family sd3TransformerFamily();

}  // namespace hs
