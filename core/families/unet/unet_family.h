#pragma once
// The UNet2DConditionModel family: the denoiser of Stable Diffusion 1.x, 2.x and SDXL
// (diffusers UNet2DConditionModel), loaded from a diffusers "unet" folder.
#include "models/module_component.h"
#include "families/unet/unet_model.h"

namespace hs {

// `halfscope-cli run-module`'s inputs -> UNetInputs on `device`: in.sample, in.timestep,
// in.encoder_hidden_states and, for addition_embed_type "text_time", in.text_embeds and
// in.time_ids (also accepted as in.added_cond_kwargs.text_embeds / .time_ids). Throws InputError
// naming the key and the expected shape for a missing, unknown or misshapen input.
UNetInputs unetInputsFrom(const UNetConfig& cfg, const NamedTensors& inputs,
                          const torch::Device& device);

inline constexpr auto runUNet2DCondition = &runForward<UNet2DConditionModel, unetInputsFrom>;

// The inputs above -> out.sample [B, out_channels, h, w] float32.
class UNet2DConditionComponent
    : public ModuleComponent<UNet2DConditionComponent, UNet2DConditionModel, runUNet2DCondition> {
public:
    using ModuleComponent::ModuleComponent;
};

Family unet2DConditionFamily();

}  // namespace hs
