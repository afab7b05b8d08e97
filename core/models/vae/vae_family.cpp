#include "models/vae/vae_family.h"

#include "models/vae/vae_io.h"

namespace hs {

namespace {

// config.json's latent_rgb_factors (Halfscope's own key): (C + 1) x 3 numbers, the last row
// the bias, or an undefined tensor when absent or of another size.
torch::Tensor rgbFactorsOf(const nlohmann::json& config, int64_t channels) {
    if (!config.contains("latent_rgb_factors") || !config["latent_rgb_factors"].is_array())
        return {};
    std::vector<double> f;
    for (const auto& v : config["latent_rgb_factors"]) {
        if (!v.is_number()) return {};
        f.push_back(v.get<double>());
    }
    if (int64_t(f.size()) != (channels + 1) * 3) return {};
    return torch::tensor(f, torch::kFloat64).to(torch::kFloat32).view({channels + 1, 3});
}

}  // namespace

NamedTensors AutoencoderKLComponent::run(const NamedTensors& inputs, ProbeContext& probes) {
    return runAutoencoderKL(model, inputs, probes);
}

torch::Tensor AutoencoderKLComponent::unscale(const torch::Tensor& latents) const {
    return unscaleLatents(latents, model->config());
}

torch::Tensor AutoencoderKLComponent::decode(const torch::Tensor& z, ProbeContext& probes) {
    return model->decode(z, probes);
}

VaeMoments AutoencoderKLComponent::encode(const torch::Tensor& image, ProbeContext& probes) {
    return model->encode(image, probes);
}

Family autoencoderKLFamily() {
    Family f;
    f.name = "AutoencoderKL";
    f.classNames = {"AutoencoderKL"};
    f.role = Role::Vae;
    f.defaultComponent = "vae";
    f.io = "in.z -> out.decode.sample; in.x -> out.encode.mean, out.encode.logvar";
    f.build = [](const ComponentSource& s, const std::string& component) {
        const auto cfg = AutoencoderKLConfig::fromJson(s.config);
        const int64_t channels = cfg.latentChannels;
        return std::make_shared<AutoencoderKLComponent>(AutoencoderKL(cfg, component),
                                                        rgbFactorsOf(s.config, channels));
    };
    return f;
}

}  // namespace hs
