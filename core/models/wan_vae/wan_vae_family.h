#pragma once
// The AutoencoderKLWan family: diffusers AutoencoderKLWan (Wan 2.1) and AutoencoderKLQwenImage
// (Qwen-Image, Anima), images as one-frame videos.
#include "models/roles.h"
#include "models/wan_vae/wan_vae_model.h"

namespace hs {

class WanVaeComponent : public VaeComponent {
public:
    explicit WanVaeComponent(WanVae m) : model(std::move(m)) {}
    torch::nn::Module& module() override { return *model; }
    // in.z [B, z_dim, 1, h, w] -> out.decode.sample [B, out_channels, 1, h * f, w * f];
    // in.x [B, in_channels, 1, H, W] -> out.encode.mean, out.encode.logvar [B, z_dim, 1, h, w]
    // (H, W multiples of f). More than one frame is an InputError: the causal feature cache
    // that carries frames across chunks is not implemented.
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;
    int latentChannels() const override { return model->config().zDim; }
    int downFactor() const override { return model->config().downFactor(); }
    torch::Tensor unscale(const torch::Tensor& latents) const override;
    // [B, z_dim, h, w] -> [B, out_channels, H, W] (the time axis left out on both sides)
    torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes) override;
    VaeMoments encode(const torch::Tensor& image, ProbeContext& probes) override;
    bool videoLatents() const override { return true; }

    WanVae model;
};

Family wanVaeFamily();

}  // namespace hs
