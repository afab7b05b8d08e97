#include "families/cosmos/cosmos_family.h"

namespace hs {

CosmosInputs cosmosInputsFrom(const CosmosConfig& c, const NamedTensors& inputs,
                              const torch::Device& device) {
    checkInputKeys(
        inputs, {"in.hidden_states", "in.timestep", "in.encoder_hidden_states", "in.padding_mask"},
        "Cosmos");
    CosmosInputs in;
    const std::string ch = std::to_string(c.inChannels);
    in.hiddenStates = requireInput(inputs, "in.hidden_states", {-1, c.inChannels, -1, -1, -1},
                                   "[B, " + ch + ", T, H, W]");
    const int64_t B = in.hiddenStates.size(0);
    const char* axis[3] = {"T", "H", "W"};
    for (int i = 0; i < 3; ++i) {
        const int64_t n = in.hiddenStates.size(2 + i), p = c.patchSize[i];
        if (n < p || n % p != 0 || n / p > c.maxPatchedPositions())
            throw InputError("input 'in.hidden_states' has shape " +
                             shapeText(in.hiddenStates.sizes()) + ", expected [B, " + ch +
                             ", T, H, W] with " + axis[i] + " a multiple of " + std::to_string(p) +
                             " and at most " + std::to_string(p * c.maxPatchedPositions()) +
                             " (max_size / patch_size)");
    }
    const std::string b = std::to_string(B);
    in.encoderHiddenStates =
        requireInput(inputs, "in.encoder_hidden_states", {B, -1, c.textEmbedDim},
                     "[" + b + ", L_txt, " + std::to_string(c.textEmbedDim) + "]");
    in.timestep = requireBatchScalar(inputs, "in.timestep", B, "[" + b + "] or [1]");
    auto it = inputs.find("in.padding_mask");
    if (it != inputs.end()) {
        if (!c.concatPaddingMask)
            throw InputError(
                "input 'in.padding_mask' given, but the model's config has "
                "concat_padding_mask false");
        in.paddingMask = checkInput("in.padding_mask", it->second, {1, 1, -1, -1}, "[1, 1, h, w]");
        if (in.paddingMask.size(2) < 1 || in.paddingMask.size(3) < 1)
            throw InputError("input 'in.padding_mask' is empty, expected [1, 1, h, w]");
    }
    for (torch::Tensor* x :
         {&in.hiddenStates, &in.timestep, &in.encoderHiddenStates, &in.paddingMask}) {
        if (x->defined()) *x = x->to(device);
    }
    return in;
}

Family cosmosTransformerFamily() {
    return makeFamily<CosmosTransformerComponent, CosmosConfig>(
        {"Cosmos transformer",
         {"CosmosTransformer3DModel"},
         Role::Denoiser,
         "transformer",
         "in.hidden_states, in.timestep, in.encoder_hidden_states, in.padding_mask -> out.sample",
         {"transformer_blocks."}});
}

}  // namespace hs
