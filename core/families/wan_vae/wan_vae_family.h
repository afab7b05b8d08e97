#pragma once
// The AutoencoderKLWan family: diffusers AutoencoderKLWan (Wan 2.1) and AutoencoderKLQwenImage
// (Qwen-Image, Anima), images as one-frame videos.
#include "models/module_component.h"
#include "families/wan_vae/wan_vae_model.h"

namespace hs {

// run-module: in.z [B, z_dim, 1, h, w] -> out.decode.sample [B, out_channels, 1, h * f, w * f];
// in.x [B, in_channels, 1, H, W] -> out.encode.mean, out.encode.logvar [B, z_dim, 1, h, w]
// (H, W multiples of f); see runVae.
class WanVaeComponent : public VaeModuleComponent<WanVaeComponent, WanVae> {
public:
    using VaeModuleComponent::VaeModuleComponent;
    int latentChannels() const override { return model->config().zDim; }
    int imageChannels() const override { return model->config().inChannels; }
    int downFactor() const override { return model->config().downFactor(); }
    torch::Tensor unscale(const torch::Tensor& latents) const override;
    LatentRgbMap latentRgbMap() const override;
    bool videoLatents() const override { return true; }
};

Family wanVaeFamily();

}  // namespace hs
