#include "models/vae/vae_io.h"

#include "models/common/weights.h"

namespace hs {

namespace {

// Checks a 4-D floating tensor with `channels` channels whose H and W are positive multiples of
// `multiple`.
void checkImageLike(const std::string& key, const torch::Tensor& t, int channels, int multiple,
                    const std::string& expected) {
    bool ok = t.defined() && t.dim() == 4 && t.is_floating_point() && t.size(0) > 0 &&
              t.size(1) == channels && t.size(2) > 0 && t.size(3) > 0 &&
              t.size(2) % multiple == 0 && t.size(3) % multiple == 0;
    if (ok) return;
    std::string got =
        !t.defined() ? "an undefined tensor"
                     : std::string(c10::toString(t.scalar_type())) + " " + shapeText(t.sizes());
    throw InputError("input '" + key + "': expected a floating tensor of shape " + expected +
                     ", got " + got);
}

}  // namespace

NamedTensors runAutoencoderKL(AutoencoderKL& model, const NamedTensors& inputs,
                              ProbeContext& probes) {
    torch::NoGradGuard noGrad;  // inference; the trainer calls encode/decode with autograd
    const AutoencoderKLConfig& cfg = model->config();
    const int f = cfg.downFactor();
    const std::string cl = std::to_string(cfg.latentChannels);
    const std::string fs = std::to_string(f);
    bool any = false;
    for (const auto& kv : inputs) {
        if (kv.first.rfind("in.", 0) != 0) continue;
        if (kv.first != "in.z" && kv.first != "in.x")
            throw InputError("input '" + kv.first + "' is not a VAE input (expected in.z, in.x)");
        any = true;
    }
    if (!any)
        throw InputError("missing input: give 'in.z' [B, " + cl +
                         ", h, w] to decode or 'in.x' [B, " + std::to_string(cfg.inChannels) +
                         ", H, W] to encode");

    NamedTensors out;
    const auto dev = probes.device();
    if (auto it = inputs.find("in.z"); it != inputs.end()) {
        checkImageLike("in.z", it->second, cfg.latentChannels, 1, "[B, " + cl + ", h, w]");
        auto sample = model->decode(it->second.to(dev), probes);  // [B, out_ch, h*f, w*f]
        out["out.decode.sample"] = sample.to(torch::kCPU, torch::kFloat);
    }
    if (auto it = inputs.find("in.x"); it != inputs.end()) {
        checkImageLike(
            "in.x", it->second, cfg.inChannels, f,
            "[B, " + std::to_string(cfg.inChannels) + ", H, W] with H, W multiples of " + fs);
        auto m = model->encode(it->second.to(dev), probes);  // [B, Cl, H/f, W/f] each
        out["out.encode.mean"] = m.mean.to(torch::kCPU, torch::kFloat);
        out["out.encode.logvar"] = m.logvar.to(torch::kCPU, torch::kFloat);
    }
    return out;
}

}  // namespace hs
