#include "models/wan_vae/wan_vae_family.h"

namespace hs {

torch::Tensor WanVaeComponent::unscale(const torch::Tensor& latents) const {
    return wanUnscaleLatents(latents, model->config());
}

torch::Tensor WanVaeComponent::decode(const torch::Tensor& z, ProbeContext& probes) {
    return model->decode(z, probes);
}

VaeMoments WanVaeComponent::encode(const torch::Tensor& image, ProbeContext& probes) {
    return model->encode(image, probes);
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
