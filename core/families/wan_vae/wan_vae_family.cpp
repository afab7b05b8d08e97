#include "families/wan_vae/wan_vae_family.h"

#include "families/wan_vae/wan_latent_rgb.h"

namespace hs {

torch::Tensor WanVaeComponent::unscale(const torch::Tensor& latents) const {
    return wanUnscaleLatents(latents, model->config());
}

LatentRgbMap WanVaeComponent::latentRgbMap() const {
    return wanLatentRgbMap(model->config());
}

Family wanVaeFamily() {
    return makeFamily<WanVaeComponent, WanVaeConfig>(
        {"AutoencoderKLWan (Wan 2.1 / Qwen-Image VAE, images)",
         {"AutoencoderKLWan", "AutoencoderKLQwenImage"},
         Role::Vae,
         "vae",
         "in.z [B,C,1,h,w] -> out.decode.sample; in.x [B,3,1,H,W] -> out.encode.mean, "
         "out.encode.logvar"});
}

}  // namespace hs
