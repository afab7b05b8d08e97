#pragma once
// The AutoencoderKL family: diffusers AutoencoderKL (SD 1.x/2.x, SDXL, SD3, Flux, the demo VAE).
#include "models/roles.h"
#include "models/vae/autoencoder_kl.h"

namespace hs {

class AutoencoderKLComponent : public VaeComponent {
public:
    AutoencoderKLComponent(AutoencoderKL m, torch::Tensor rgbFactors)
        : model(std::move(m)), m_rgbFactors(std::move(rgbFactors)) {}
    torch::nn::Module& module() override { return *model; }
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override;
    int latentChannels() const override { return model->config().latentChannels; }
    int downFactor() const override { return model->config().downFactor(); }
    torch::Tensor unscale(const torch::Tensor& latents) const override;
    torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes) override;
    VaeMoments encode(const torch::Tensor& image, ProbeContext& probes) override;
    torch::Tensor rgbFactors() const override { return m_rgbFactors; }
    bool forceUpcast() const override { return model->config().forceUpcast; }
    std::pair<int, int> sampleSize() const override {
        const auto& s = model->config().sampleSize;
        return {s.front(), s.back()};
    }

    AutoencoderKL model;

private:
    torch::Tensor m_rgbFactors;
};

Family autoencoderKLFamily();

}  // namespace hs
