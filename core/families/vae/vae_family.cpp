#include "families/vae/vae_family.h"

#include "families/vae/vae_latent_rgb.h"

namespace hs {

LatentRgbMap AutoencoderKLComponent::latentRgbMap() const {
    return latentRgbMapOf(model->config());
}

torch::Tensor AutoencoderKLComponent::unscale(const torch::Tensor& latents) const {
    return unscaleLatents(latents, model->config());
}

Family autoencoderKLFamily() {
    return makeFamily<AutoencoderKLComponent, AutoencoderKLConfig>(
        {"AutoencoderKL",
         {"AutoencoderKL"},
         Role::Vae,
         "vae",
         "in.z -> out.decode.sample; in.x -> out.encode.mean, out.encode.logvar"});
}

}  // namespace hs
