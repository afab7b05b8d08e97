#include "models/wan_vae/wan_vae_family.h"

#include "models/common/weights.h"

namespace hs {

namespace {

// Checks a 5-D floating [B, channels, 1, H, W] tensor, H and W positive multiples of `multiple`.
void checkFrames(const std::string& key, const torch::Tensor& t, int channels, int multiple,
                 const std::string& expected) {
    const bool ok = t.defined() && t.dim() == 5 && t.is_floating_point() && t.size(0) > 0 &&
                    t.size(1) == channels && t.size(2) == 1 && t.size(3) > 0 && t.size(4) > 0 &&
                    t.size(3) % multiple == 0 && t.size(4) % multiple == 0;
    if (ok) return;
    const std::string got =
        !t.defined() ? "an undefined tensor"
                     : std::string(c10::toString(t.scalar_type())) + " " + shapeText(t.sizes());
    std::string why;
    if (t.defined() && t.dim() == 5 && t.size(2) > 1)
        why = " (" + std::to_string(t.size(2)) +
              " frames: this VAE runs images, T = 1; the causal feature cache that carries video "
              "frames across chunks is not implemented)";
    throw InputError("input '" + key + "': expected a floating tensor of shape " + expected +
                     ", got " + got + why);
}

}  // namespace

NamedTensors WanVaeComponent::run(const NamedTensors& inputs, ProbeContext& probes) {
    torch::NoGradGuard noGrad;
    const WanVaeConfig& cfg = model->config();
    const std::string zs = std::to_string(cfg.zDim), cin = std::to_string(cfg.inChannels);
    bool any = false;
    for (const auto& kv : inputs) {
        if (kv.first.rfind("in.", 0) != 0) continue;
        if (kv.first != "in.z" && kv.first != "in.x")
            throw InputError("input '" + kv.first + "' is not a VAE input (expected in.z, in.x)");
        any = true;
    }
    if (!any)
        throw InputError("missing input: give 'in.z' [B, " + zs +
                         ", 1, h, w] to decode or 'in.x' [B, " + cin + ", 1, H, W] to encode");
    NamedTensors out;
    const auto dev = probes.device();
    if (auto it = inputs.find("in.z"); it != inputs.end()) {
        checkFrames("in.z", it->second, cfg.zDim, 1, "[B, " + zs + ", 1, h, w]");
        auto sample = model->decode(it->second.squeeze(2).to(dev), probes);  // [B, 3, H, W]
        out["out.decode.sample"] = sample.unsqueeze(2).to(torch::kCPU, torch::kFloat);
    }
    if (auto it = inputs.find("in.x"); it != inputs.end()) {
        const std::string f = std::to_string(cfg.downFactor());
        checkFrames("in.x", it->second, cfg.inChannels, cfg.downFactor(),
                    "[B, " + cin + ", 1, H, W] with H, W multiples of " + f);
        auto m = model->encode(it->second.squeeze(2).to(dev), probes);  // [B, z, h, w] each
        out["out.encode.mean"] = m.mean.unsqueeze(2).to(torch::kCPU, torch::kFloat);
        out["out.encode.logvar"] = m.logvar.unsqueeze(2).to(torch::kCPU, torch::kFloat);
    }
    return out;
}

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
    Family f;
    f.name = "AutoencoderKLWan (Wan 2.1 / Qwen-Image VAE, images)";
    f.classNames = {"AutoencoderKLWan", "AutoencoderKLQwenImage"};
    f.role = Role::Vae;
    f.defaultComponent = "vae";
    f.io =
        "in.z [B,C,1,h,w] -> out.decode.sample; in.x [B,3,1,H,W] -> out.encode.mean, "
        "out.encode.logvar";
    f.build = [](const ComponentSource& s, const std::string& component) {
        return std::make_shared<WanVaeComponent>(
            WanVae(WanVaeConfig::fromJson(s.config), component));
    };
    return f;
}

}  // namespace hs
