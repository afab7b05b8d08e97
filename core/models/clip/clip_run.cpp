#include "models/clip/clip_run.h"

#include "models/common/weights.h"

namespace hs {

NamedTensors runClipText(ClipTextModel& model, const NamedTensors& inputs, ProbeContext& probes) {
    const ClipTextConfig& cfg = model->config();
    const char* key = "in.input_ids";
    const std::string expected =
        "[B, L] integer ids with 1 <= L <= " + std::to_string(cfg.maxPositionEmbeddings);
    auto it = inputs.find(key);
    if (it == inputs.end())
        throw InputError(std::string("missing input '") + key + "' (" + expected + ")");
    const torch::Tensor& raw = it->second;
    if (!raw.defined() || raw.dim() != 2 || raw.size(0) < 1 || raw.size(1) < 1 ||
        raw.size(1) > cfg.maxPositionEmbeddings)
        throw InputError(std::string("input '") + key + "' has shape " +
                         (raw.defined() ? shapeText(raw.sizes()) : "undefined") + ", expected " +
                         expected);
    if (raw.is_floating_point() || raw.is_complex() || raw.scalar_type() == torch::kBool)
        throw InputError(std::string("input '") + key + "' must hold integer ids, got dtype " +
                         std::string(c10::toString(raw.scalar_type())));
    torch::NoGradGuard noGrad;
    auto ids = raw.to(torch::kCPU, torch::kInt64).contiguous();  // [B, L]
    const auto bad = (ids < 0).logical_or(ids >= cfg.vocabSize).nonzero();
    if (bad.size(0) > 0) {
        const int64_t b = bad[0][0].item<int64_t>(), l = bad[0][1].item<int64_t>();
        throw InputError(std::string("input '") + key + "' holds id " +
                         std::to_string(ids[b][l].item<int64_t>()) + " at [" + std::to_string(b) +
                         ", " + std::to_string(l) + "], outside the vocabulary [0, " +
                         std::to_string(cfg.vocabSize) + ")");
    }
    ClipTextOutput r = model->forward(ids.to(probes.device()), probes);
    auto f32 = [](const torch::Tensor& t) { return t.to(torch::kFloat32); };
    NamedTensors out;
    out["out.last_hidden_state"] = f32(r.lastHiddenState);
    out["out.pooler_output"] = f32(r.poolerOutput);
    if (r.textEmbeds.defined()) out["out.text_embeds"] = f32(r.textEmbeds);
    for (size_t i = 0; i < r.hiddenStates.size(); ++i)
        out["out.hidden_states." + std::to_string(i)] = f32(r.hiddenStates[i]);
    return out;
}

}  // namespace hs
