#pragma once
// What a pipeline asks of a component in a given role, whatever its family: a denoising
// strategy (denoising/) talks to text encoders and VAEs through these, and only to the
// denoiser of its own shape directly.
#include <torch/torch.h>

#include <vector>

#include "models/registry.h"

namespace hs {

struct TextEncoding {
    torch::Tensor lastHiddenState;            // [B, L, D]
    torch::Tensor pooled;                     // [B, D] (undefined when the encoder has none)
    torch::Tensor projected;                  // [B, P] the pooled vector through the encoder's
                                              // projection (CLIP's text_embeds), if it has one
    std::vector<torch::Tensor> hiddenStates;  // every layer's output, embeddings first
};

class TextEncoderComponent : public Component {
public:
    // ids [B, L] int64 on the component's device.
    virtual TextEncoding encode(const torch::Tensor& ids, ProbeContext& probes) = 0;
    virtual int64_t width() const = 0;  // D
};

struct VaeMoments {
    torch::Tensor mean;    // [B, latent_channels, h, w]
    torch::Tensor logvar;  // [B, latent_channels, h, w]
};

class VaeComponent : public Component {
public:
    virtual int latentChannels() const = 0;
    virtual int downFactor() const = 0;  // image pixels per latent pixel, each axis
    // Diffusion-space latents [B, C, h, w] (what a sampler produces) -> the decoder's input,
    // with the VAE config's scaling and shift (or per-channel mean and std).
    virtual torch::Tensor unscale(const torch::Tensor& latents) const = 0;
    // Decoder-space latents [B, C, h, w] -> image [B, 3, h * f, w * f] in [-1, 1] nominal.
    virtual torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes) = 0;
    // Image [B, 3, H, W] -> the posterior's moments in decoder space.
    virtual VaeMoments encode(const torch::Tensor& image, ProbeContext& probes) = 0;
    // The linear latent-to-RGB map for fast previews: [C + 1, 3] float32 (last row the bias), or
    // undefined when the config gives none.
    virtual torch::Tensor rgbFactors() const { return {}; }
    // The config's force_upcast: diffusers' pipelines decode this VAE in fp32 when it is fp16
    // (SD / SDXL VAEs overflow fp16).
    virtual bool forceUpcast() const { return false; }
};

}  // namespace hs
