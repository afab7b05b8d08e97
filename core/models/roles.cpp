#include "models/roles.h"

#include "base/pipeline_error.h"
#include "models/common/weights.h"

namespace hs {

Component* componentIn(const ComponentMap& components, const std::string& slot,
                       const std::function<bool(Component*)>& isKind, const std::string& what) {
    const auto it = components.find(slot);
    if (it == components.end() || !it->second) return nullptr;
    if (!isKind(it->second.get()))
        throw PipelineError("the '" + slot + "' component is not " + what);
    return it->second.get();
}

namespace {

// Checks a floating [B, channels, (1,) H, W] tensor, H and W positive multiples of `multiple`.
void checkVaeInput(const std::string& key, const torch::Tensor& t, int channels, int multiple,
                   bool frames, const std::string& expected) {
    const int64_t dims = frames ? 5 : 4;
    const bool ok = t.defined() && t.dim() == dims && t.is_floating_point() && t.size(0) > 0 &&
                    t.size(1) == channels && (!frames || t.size(2) == 1) && t.size(dims - 2) > 0 &&
                    t.size(dims - 1) > 0 && t.size(dims - 2) % multiple == 0 &&
                    t.size(dims - 1) % multiple == 0;
    if (ok) return;
    const std::string got =
        !t.defined() ? "an undefined tensor"
                     : std::string(c10::toString(t.scalar_type())) + " " + shapeText(t.sizes());
    std::string why;
    if (frames && t.defined() && t.dim() == 5 && t.size(2) > 1)
        why = " (" + std::to_string(t.size(2)) +
              " frames: this VAE runs images, T = 1; the causal feature cache that carries video "
              "frames across chunks is not implemented)";
    throw InputError("input '" + key + "': expected a floating tensor of shape " + expected +
                     ", got " + got + why);
}

}  // namespace

NamedTensors runVae(VaeComponent& vae, const NamedTensors& inputs, ProbeContext& probes) {
    torch::NoGradGuard noGrad;  // inference; the trainer calls encode/decode with autograd
    const bool frames = vae.videoLatents();
    const std::string t = frames ? "1, " : "", f = std::to_string(vae.downFactor());
    const std::string zShape = "[B, " + std::to_string(vae.latentChannels()) + ", " + t + "h, w]";
    const std::string xShape = "[B, " + std::to_string(vae.imageChannels()) + ", " + t + "H, W]";
    bool any = false;
    for (const auto& kv : inputs) {
        if (kv.first.rfind("in.", 0) != 0) continue;
        if (kv.first != "in.z" && kv.first != "in.x")
            throw InputError("input '" + kv.first + "' is not a VAE input (expected in.z, in.x)");
        any = true;
    }
    if (!any)
        throw InputError("missing input: give 'in.z' " + zShape + " to decode or 'in.x' " + xShape +
                         " to encode");
    // Video VAEs take [B, C, 1, h, w]; decode() and encode() see [B, C, h, w].
    auto image = [&](const torch::Tensor& x) {
        return (frames ? x.squeeze(2) : x).to(probes.device());
    };
    auto video = [&](const torch::Tensor& x) {
        return (frames ? x.unsqueeze(2) : x).to(torch::kCPU, torch::kFloat);
    };
    NamedTensors out;
    if (auto it = inputs.find("in.z"); it != inputs.end()) {
        checkVaeInput("in.z", it->second, vae.latentChannels(), 1, frames, zShape);
        out["out.decode.sample"] = video(vae.decode(image(it->second), probes));
    }
    if (auto it = inputs.find("in.x"); it != inputs.end()) {
        checkVaeInput("in.x", it->second, vae.imageChannels(), vae.downFactor(), frames,
                      xShape + " with H, W multiples of " + f);
        const VaeMoments m = vae.encode(image(it->second), probes);  // [B, Cl, H/f, W/f] each
        out["out.encode.mean"] = video(m.mean);
        out["out.encode.logvar"] = video(m.logvar);
    }
    return out;
}

NamedTensors runTextEncoder(TextEncoderComponent& encoder, const NamedTensors& inputs,
                            ProbeContext& probes) {
    const TokenTable table = encoder.tokenTable();
    checkInputKeys(inputs, {"in.input_ids", "in.attention_mask"}, "a text encoder");
    torch::NoGradGuard noGrad;
    const torch::Tensor ids = requireTokenIds(inputs, table.maxLength, table.rows);  // [B, L]
    const int64_t B = ids.size(0), L = ids.size(1);
    torch::Tensor mask;
    if (inputs.count("in.attention_mask")) {
        const std::string shape = "[" + std::to_string(B) + ", " + std::to_string(L) + "] of 0/1";
        mask = checkInput("in.attention_mask", inputs.at("in.attention_mask"), {B, L}, shape)
                   .to(torch::kCPU);
        if (mask.ne(0).logical_and(mask.ne(1)).any().item<bool>())
            throw InputError("input 'in.attention_mask' must hold 0 (padding) or 1 (token), " +
                             shape);
        mask = mask.to(probes.device(), torch::kInt64);
    }
    const TextEncoding e = encoder.encode(ids.to(probes.device()), mask, probes);
    NamedTensors out;
    const std::pair<const char*, const torch::Tensor*> named[] = {
        {"out.last_hidden_state", &e.lastHiddenState},
        {"out.pooler_output", &e.pooled},
        {"out.text_embeds", &e.projected}};
    for (const auto& [key, t] : named)
        if (t->defined()) out[key] = t->to(torch::kFloat32);
    for (size_t i = 0; i < e.hiddenStates.size(); ++i)
        out["out.hidden_states." + std::to_string(i)] = e.hiddenStates[i].to(torch::kFloat32);
    return out;
}

TextEncoderComponent* textEncoderIn(const ComponentMap& components, const std::string& slot) {
    return componentOfKindIn<TextEncoderComponent>(components, slot, "a text encoder");
}

VaeComponent* vaeIn(const ComponentMap& components, const std::string& slot) {
    return componentOfKindIn<VaeComponent>(components, slot, "a VAE");
}

}  // namespace hs
