#include "models/sd3/sd3_family.h"

namespace hs {

SD3Inputs sd3InputsFrom(const SD3Config& c, const NamedTensors& inputs,
                        const torch::Device& device) {
    checkInputKeys(
        inputs,
        {"in.hidden_states", "in.encoder_hidden_states", "in.pooled_projections", "in.timestep"},
        "SD3");
    SD3Inputs in;
    const int64_t p = c.patchSize, maxSide = int64_t(c.posEmbedMaxSize) * p;
    const std::string latentShape = "[B, " + std::to_string(c.inChannels) +
                                    ", H, W] with H and W multiples of " + std::to_string(p) +
                                    " up to " + std::to_string(maxSide);
    in.hiddenStates =
        requireInput(inputs, "in.hidden_states", {-1, c.inChannels, -1, -1}, latentShape);
    const int64_t B = in.hiddenStates.size(0), H = in.hiddenStates.size(2),
                  W = in.hiddenStates.size(3);
    if (B < 1 || H < p || W < p || H % p != 0 || W % p != 0 || H > maxSide || W > maxSide)
        throw InputError("input 'in.hidden_states' has shape " +
                         shapeText(in.hiddenStates.sizes()) + ", expected " + latentShape +
                         " (pos_embed_max_size " + std::to_string(c.posEmbedMaxSize) + " patches)");
    const std::string b = std::to_string(B);
    in.encoderHiddenStates =
        requireInput(inputs, "in.encoder_hidden_states", {B, -1, c.jointAttentionDim},
                     "[" + b + ", L_txt, " + std::to_string(c.jointAttentionDim) + "]");
    in.pooledProjections =
        requireInput(inputs, "in.pooled_projections", {B, c.pooledProjectionDim},
                     "[" + b + ", " + std::to_string(c.pooledProjectionDim) + "]");
    auto it = inputs.find("in.timestep");
    const std::string tExpected = "[" + b + "] or [1] (t in [0, 1000])";
    if (it == inputs.end())
        throw InputError("missing input 'in.timestep' (expected shape " + tExpected + ")");
    torch::Tensor t = it->second;
    if (t.defined() && t.dim() == 0) t = t.reshape({1});
    t = checkInput("in.timestep", t, {t.defined() && t.dim() == 1 && t.size(0) == 1 ? 1 : B},
                   tExpected);
    in.timestep = t.expand({B}).to(torch::kFloat32);
    for (torch::Tensor* x :
         {&in.hiddenStates, &in.encoderHiddenStates, &in.pooledProjections, &in.timestep})
        *x = x->to(device);
    return in;
}

NamedTensors runSD3Transformer(SD3Transformer& model, const NamedTensors& inputs,
                               ProbeContext& probes) {
    torch::NoGradGuard noGrad;
    SD3Inputs in = sd3InputsFrom(model->config(), inputs, probes.device());
    NamedTensors out;
    out["out.sample"] = model->forward(in, probes).to(torch::kFloat32);
    return out;
}

NamedTensors SD3TransformerComponent::run(const NamedTensors& inputs, ProbeContext& probes) {
    return runSD3Transformer(model, inputs, probes);
}

torch::Tensor SD3TransformerComponent::predict(const torch::Tensor& latents,
                                               const torch::Tensor& encoderHiddenStates,
                                               const torch::Tensor& pooled,
                                               const torch::Tensor& timestep,
                                               ProbeContext& probes) {
    torch::NoGradGuard noGrad;
    const NamedTensors named{{"in.hidden_states", latents},
                             {"in.encoder_hidden_states", encoderHiddenStates},
                             {"in.pooled_projections", pooled},
                             {"in.timestep", timestep}};
    SD3Inputs in = sd3InputsFrom(model->config(), named, probes.device());
    return model->forward(in, probes).to(torch::kFloat32);
}

Family sd3TransformerFamily() {
    Family f;
    f.name = "SD3 transformer";
    f.classNames = {"SD3Transformer2DModel"};
    f.role = Role::Denoiser;
    f.defaultComponent = "transformer";
    f.io =
        "in.hidden_states, in.encoder_hidden_states, in.pooled_projections, in.timestep -> "
        "out.sample";
    f.blockStems = {"transformer_blocks."};
    f.build = [](const ComponentSource& s, const std::string& component) {
        return std::make_shared<SD3TransformerComponent>(
            SD3Transformer(SD3Config::fromJson(s.config), component));
    };
    return f;
}

}  // namespace hs
