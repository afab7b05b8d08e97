#pragma once
// The AutoencoderKL family: diffusers AutoencoderKL (SD 1.x/2.x, SDXL, SD3, Flux, the demo VAE).
#include "models/module_component.h"
#include "families/vae/autoencoder_kl.h"

namespace hs {

class AutoencoderKLComponent : public VaeModuleComponent<AutoencoderKLComponent, AutoencoderKL> {
public:
    using VaeModuleComponent::VaeModuleComponent;
    int latentChannels() const override { return model->config().latentChannels; }
    int imageChannels() const override { return model->config().inChannels; }
    int downFactor() const override { return model->config().downFactor(); }
    torch::Tensor unscale(const torch::Tensor& latents) const override;
    LatentRgbMap latentRgbMap() const override;
    bool forceUpcast() const override { return model->config().forceUpcast; }
    std::pair<int, int> sampleSize() const override {
        const auto& s = model->config().sampleSize;
        return {s.front(), s.back()};
    }
};

Family autoencoderKLFamily();

}  // namespace hs
