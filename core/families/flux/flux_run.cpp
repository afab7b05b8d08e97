#include "families/flux/flux_run.h"

namespace hs {

namespace {

// [B], [1] or a scalar -> [B]
torch::Tensor perBatch(const NamedTensors& inputs, const std::string& key, int64_t B,
                       const char* what) {
    const std::string expected = std::string("[B] = [") + std::to_string(B) + "] (" + what + ")";
    return requireBatchScalar(inputs, key, B, expected).expand({B});
}

// [L, n] or legacy [B, L, n] -> [L, n]
torch::Tensor ids(const NamedTensors& inputs, const std::string& key, int64_t L, int64_t n) {
    const std::string expected = "[" + std::to_string(L) + ", " + std::to_string(n) + "]";
    auto it = inputs.find(key);
    if (it == inputs.end())
        throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
    if (it->second.dim() == 3)
        return checkInput(key, it->second, {-1, L, n}, expected).select(0, 0);
    return checkInput(key, it->second, {L, n}, expected);
}

}  // namespace

FluxInputs fluxInputsFrom(const FluxConfig& c, const NamedTensors& inputs,
                          const torch::Device& device) {
    checkInputKeys(inputs,
                   {"in.hidden_states", "in.encoder_hidden_states", "in.pooled_projections",
                    "in.timestep", "in.guidance", "in.img_ids", "in.txt_ids"},
                   "Flux");
    FluxInputs in;
    in.hiddenStates = requireInput(inputs, "in.hidden_states", {-1, -1, c.inChannels},
                                   "[B, L_img, " + std::to_string(c.inChannels) + "]");
    const int64_t B = in.hiddenStates.size(0), li = in.hiddenStates.size(1);
    const std::string b = std::to_string(B);
    in.encoderHiddenStates =
        requireInput(inputs, "in.encoder_hidden_states", {B, -1, c.jointAttentionDim},
                     "[" + b + ", L_txt, " + std::to_string(c.jointAttentionDim) + "]");
    const int64_t lt = in.encoderHiddenStates.size(1);
    in.pooledProjections =
        requireInput(inputs, "in.pooled_projections", {B, c.pooledProjectionDim},
                     "[" + b + ", " + std::to_string(c.pooledProjectionDim) + "]");
    in.timestep = perBatch(inputs, "in.timestep", B, "sigma in [0, 1]");
    if (c.guidanceEmbeds) in.guidance = perBatch(inputs, "in.guidance", B, "guidance scale");
    const int64_t axes = int64_t(c.axesDimsRope.size());
    in.imgIds = ids(inputs, "in.img_ids", li, axes);
    in.txtIds = ids(inputs, "in.txt_ids", lt, axes);
    for (torch::Tensor* t : {&in.hiddenStates, &in.encoderHiddenStates, &in.pooledProjections,
                             &in.timestep, &in.guidance, &in.imgIds, &in.txtIds}) {
        if (t->defined()) *t = t->to(device);
    }
    return in;
}

}  // namespace hs
