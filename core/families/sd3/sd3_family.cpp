#include "families/sd3/sd3_family.h"

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
    in.timestep =
        requireBatchScalar(inputs, "in.timestep", B, "[" + b + "] or [1] (t in [0, 1000])")
            .expand({B})
            .to(torch::kFloat32);
    for (torch::Tensor* x :
         {&in.hiddenStates, &in.encoderHiddenStates, &in.pooledProjections, &in.timestep})
        *x = x->to(device);
    return in;
}

torch::Tensor SD3TransformerComponent::predict(const torch::Tensor& latents,
                                               const torch::Tensor& encoderHiddenStates,
                                               const torch::Tensor& pooled,
                                               const torch::Tensor& timestep,
                                               ProbeContext& probes) {
    const NamedTensors named{{"in.hidden_states", latents},
                             {"in.encoder_hidden_states", encoderHiddenStates},
                             {"in.pooled_projections", pooled},
                             {"in.timestep", timestep}};
    return runSD3Transformer(model, named, probes).at("out.sample");
}

Family sd3TransformerFamily() {
    return makeFamily<SD3TransformerComponent, SD3Config>(
        {"SD3 transformer",
         {"SD3Transformer2DModel"},
         Role::Denoiser,
         "transformer",
         "in.hidden_states, in.encoder_hidden_states, in.pooled_projections, in.timestep -> "
         "out.sample",
         {"transformer_blocks."}});
}

}  // namespace hs
