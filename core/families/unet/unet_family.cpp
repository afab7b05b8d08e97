#include "families/unet/unet_family.h"

namespace hs {

namespace {

const char* kTextEmbeds = "in.text_embeds";
const char* kTimeIds = "in.time_ids";
const char* kAddedTextEmbeds = "in.added_cond_kwargs.text_embeds";
const char* kAddedTimeIds = "in.added_cond_kwargs.time_ids";

// The tensor under `key` or its added_cond_kwargs alias (giving both is an error).
torch::Tensor either(const NamedTensors& inputs, const std::string& key, const std::string& alias) {
    auto a = inputs.find(key), b = inputs.find(alias);
    if (a != inputs.end() && b != inputs.end())
        throw InputError("inputs '" + key + "' and '" + alias + "' are the same input; give one");
    if (a != inputs.end()) return a->second;
    if (b != inputs.end()) return b->second;
    return {};
}

}  // namespace

UNetInputs unetInputsFrom(const UNetConfig& cfg, const NamedTensors& inputs,
                          const torch::Device& device) {
    const bool textTime = cfg.additionEmbedType == "text_time";
    std::vector<std::string> known{"in.sample", "in.timestep", "in.encoder_hidden_states"};
    if (textTime)
        known.insert(known.end(), {kTextEmbeds, kTimeIds, kAddedTextEmbeds, kAddedTimeIds});
    checkInputKeys(inputs, known,
                   textTime ? "UNet2DConditionModel (SDXL, addition_embed_type text_time)"
                            : "UNet2DConditionModel");
    const std::string c = std::to_string(cfg.inChannels);
    auto find = [&](const std::string& key, const std::string& expected) {
        auto it = inputs.find(key);
        if (it == inputs.end())
            throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
        return it->second;
    };
    UNetInputs in;
    in.sample = find("in.sample", "[B, " + c + ", h, w]");
    in.timestep = find("in.timestep", "[B], [1] or a number");
    in.encoderHiddenStates =
        find("in.encoder_hidden_states", "[B, L, " + std::to_string(cfg.contextDim()) + "]");
    if (textTime) {
        in.textEmbeds = either(inputs, kTextEmbeds, kAddedTextEmbeds);
        in.timeIds = either(inputs, kTimeIds, kAddedTimeIds);
        const std::string atd = std::to_string(cfg.additionTimeEmbedDim);
        if (!in.timeIds.defined())
            throw InputError(std::string("missing input '") + kTimeIds + "' (or '" + kAddedTimeIds +
                             "'; expected shape [B, 6], SDXL's add_time_ids)");
        if (!in.textEmbeds.defined())
            throw InputError(std::string("missing input '") + kTextEmbeds + "' (or '" +
                             kAddedTextEmbeds +
                             "'; expected shape [B, P], the pooled text "
                             "embeddings of text_encoder_2)");
    }
    checkUNetInputs(cfg, in);  // every shape, before anything moves
    for (torch::Tensor* t :
         {&in.sample, &in.timestep, &in.encoderHiddenStates, &in.textEmbeds, &in.timeIds})
        if (t->defined()) *t = t->to(device);
    return in;
}

Family unet2DConditionFamily() {
    return makeFamily<UNet2DConditionComponent>(
        {"UNet2DConditionModel",
         {"UNet2DConditionModel"},
         Role::Denoiser,
         "unet",
         "in.sample, in.timestep, in.encoder_hidden_states (SDXL also in.text_embeds, "
         "in.time_ids) -> out.sample"},
        [](const ComponentSource& s, const std::string& component) {
            return UNet2DConditionModel(unetConfigFromJson(s.config), component);
        });
}

}  // namespace hs
