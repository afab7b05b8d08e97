#include "models/vae/vae_family.h"

namespace hs {

torch::Tensor AutoencoderKLComponent::rgbFactors() const {
    const std::vector<double>& f = model->config().latentRgbFactors;
    if (f.empty()) return {};
    return torch::tensor(f, torch::kFloat64).to(torch::kFloat32).view({-1, 3});
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
