#include "families/qwenimage/qwenimage_family.h"

#include <algorithm>

namespace hs {

namespace {

// in.img_shapes: [B, 3] or [1, 3] whole numbers, the same (frames, hp, wp) in every row.
QwenImageShape imageShape(const NamedTensors& inputs, int64_t B, int64_t tokens) {
    const std::string key = "in.img_shapes";
    const std::string expected = "[" + std::to_string(B) + ", 3] or [1, 3] (frames, hp, wp)";
    auto it = inputs.find(key);
    if (it == inputs.end())
        throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
    const torch::Tensor& t = it->second;
    if (t.dim() != 2 || t.size(1) != 3 || (t.size(0) != B && t.size(0) != 1))
        throw InputError("input '" + key + "' has shape " + shapeText(t.sizes()) + ", expected " +
                         expected);
    auto v = t.detach().to(torch::kCPU, torch::kFloat64);
    if (!torch::equal(v, v.round()))
        throw InputError("input '" + key + "' must hold whole numbers (frames, hp, wp)");
    if (!torch::equal(v, v.narrow(0, 0, 1).expand_as(v)))
        throw InputError("input '" + key +
                         "' has different image sizes in one batch (diffusers' QwenEmbedRope "
                         "uses the first for all)");
    QwenImageShape s{int64_t(v[0][0].item<double>()), int64_t(v[0][1].item<double>()),
                     int64_t(v[0][2].item<double>())};
    if (s.frames < 1 || s.height < 1 || s.width < 1 || s.tokens() != tokens)
        throw InputError("input '" + key + "' is (" + std::to_string(s.frames) + ", " +
                         std::to_string(s.height) + ", " + std::to_string(s.width) +
                         "), expected positive sizes whose product is in.hidden_states' " +
                         std::to_string(tokens) + " tokens");
    const int64_t n = QwenImageConfig::kRopePositions;
    if (s.frames > n || s.height - s.height / 2 > n || s.width - s.width / 2 > n)
        throw InputError("input '" + key + "' is larger than QwenEmbedRope's " + std::to_string(n) +
                         " positions per axis");
    return s;
}

}  // namespace

QwenImageInputs qwenImageInputsFrom(const QwenImageConfig& c, const NamedTensors& inputs,
                                    const torch::Device& device) {
    checkInputKeys(inputs,
                   {"in.hidden_states", "in.encoder_hidden_states", "in.encoder_hidden_states_mask",
                    "in.timestep", "in.img_shapes"},
                   "QwenImage");
    QwenImageInputs in;
    in.hiddenStates = requireInput(inputs, "in.hidden_states", {-1, -1, c.inChannels},
                                   "[B, frames * hp * wp, " + std::to_string(c.inChannels) + "]");
    const int64_t B = in.hiddenStates.size(0);
    const std::string b = std::to_string(B);
    in.encoderHiddenStates =
        requireInput(inputs, "in.encoder_hidden_states", {B, -1, c.jointAttentionDim},
                     "[" + b + ", L_txt, " + std::to_string(c.jointAttentionDim) + "]");
    const int64_t lt = in.encoderHiddenStates.size(1);
    if (in.hiddenStates.size(1) < 1 || lt < 1)
        throw InputError(
            "inputs 'in.hidden_states' and 'in.encoder_hidden_states' need at least "
            "one token each");
    in.shape = imageShape(inputs, B, in.hiddenStates.size(1));
    // QwenEmbedRope: text positions start after the image's largest half side.
    const int64_t textEnd = std::max(in.shape.height / 2, in.shape.width / 2) + lt;
    if (textEnd > QwenImageConfig::kRopePositions)
        throw InputError("input 'in.encoder_hidden_states' has " + std::to_string(lt) +
                         " tokens; after the image's positions they pass QwenEmbedRope's " +
                         std::to_string(QwenImageConfig::kRopePositions));
    auto it = inputs.find("in.encoder_hidden_states_mask");
    if (it != inputs.end()) {
        auto m = checkInput("in.encoder_hidden_states_mask", it->second, {B, lt},
                            "[" + b + ", " + std::to_string(lt) + "]");
        in.textMask = m.ne(0);                                              // [B, L_txt] bool
        if (in.textMask.all().item<bool>()) in.textMask = torch::Tensor();  // nothing left out
    }
    in.timestep = requireBatchScalar(inputs, "in.timestep", B, "[" + b + "] or [1]").expand({B});
    for (torch::Tensor* x : {&in.hiddenStates, &in.encoderHiddenStates, &in.textMask, &in.timestep})
        if (x->defined()) *x = x->to(device);
    return in;
}

Family qwenImageTransformerFamily() {
    return makeFamily<QwenImageTransformerComponent, QwenImageConfig>(
        {"Qwen-Image transformer",
         {"QwenImageTransformer2DModel"},
         Role::Denoiser,
         "transformer",
         "in.hidden_states, in.encoder_hidden_states, in.encoder_hidden_states_mask, "
         "in.timestep, in.img_shapes -> out.sample",
         {"transformer_blocks."}});
}

}  // namespace hs
