#include "models/flux/flux_run.h"

#include <sstream>

namespace hs {

namespace {

std::string shapeText(c10::IntArrayRef s) {
    std::ostringstream o;
    o << "[";
    for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
    o << "]";
    return o.str();
}

// Checks a tensor against an expected shape where -1 is "any" (named in `expected`).
class Checker {
public:
    explicit Checker(const NamedTensors& in) : m_in(in) {}

    const torch::Tensor* find(const std::string& key) const {
        auto it = m_in.find(key);
        return it == m_in.end() ? nullptr : &it->second;
    }

    torch::Tensor get(const std::string& key, const std::vector<int64_t>& shape,
                      const std::string& expected) const {
        const torch::Tensor* t = find(key);
        if (!t) throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
        return check(key, *t, shape, expected);
    }

    static torch::Tensor check(const std::string& key, const torch::Tensor& t,
                               const std::vector<int64_t>& shape, const std::string& expected) {
        bool ok = t.defined() && t.dim() == int64_t(shape.size());
        for (size_t i = 0; ok && i < shape.size(); ++i) ok = shape[i] < 0 || t.size(i) == shape[i];
        if (!ok) {
            throw InputError("input '" + key + "' has shape " +
                             (t.defined() ? shapeText(t.sizes()) : std::string("<undefined>")) +
                             ", expected " + expected);
        }
        if (!t.is_floating_point() && key.find("ids") == std::string::npos)
            throw InputError("input '" + key + "' must be a floating tensor, got " +
                             std::string(c10::toString(t.scalar_type())));
        return t;
    }

private:
    const NamedTensors& m_in;
};

// [B], [1] or a scalar -> [B]
torch::Tensor perBatch(const Checker& ck, const std::string& key, int64_t B, const char* what) {
    const torch::Tensor* t = ck.find(key);
    const std::string expected = std::string("[B] = [") + std::to_string(B) + "] (" + what + ")";
    if (!t) throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
    if (t->dim() == 0 || (t->dim() == 1 && t->size(0) == 1))
        return Checker::check(key, t->reshape({1}), {1}, expected).expand({B});
    return Checker::check(key, *t, {B}, expected);
}

// [L, n] or legacy [B, L, n] -> [L, n]
torch::Tensor ids(const Checker& ck, const std::string& key, int64_t L, int64_t n) {
    const std::string expected = "[" + std::to_string(L) + ", " + std::to_string(n) + "]";
    const torch::Tensor* t = ck.find(key);
    if (!t) throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
    if (t->dim() == 3) return Checker::check(key, *t, {-1, L, n}, expected).select(0, 0);
    return Checker::check(key, *t, {L, n}, expected);
}

}  // namespace

FluxInputs fluxInputsFrom(const FluxConfig& c, const NamedTensors& inputs,
                          const torch::Device& device) {
    static const char* kKnown[] = {"in.hidden_states",
                                   "in.encoder_hidden_states",
                                   "in.pooled_projections",
                                   "in.timestep",
                                   "in.guidance",
                                   "in.img_ids",
                                   "in.txt_ids"};
    for (const auto& kv : inputs) {
        if (kv.first.rfind("in.", 0) != 0) continue;  // outputs and other keys are ignored
        bool known = false;
        for (const char* k : kKnown) known |= kv.first == k;
        if (!known) {
            throw InputError("unexpected input '" + kv.first +
                             "' (Flux takes in.hidden_states, in.encoder_hidden_states, "
                             "in.pooled_projections, in.timestep, in.guidance, in.img_ids, "
                             "in.txt_ids)");
        }
    }
    Checker ck(inputs);
    FluxInputs in;
    in.hiddenStates = ck.get("in.hidden_states", {-1, -1, c.inChannels},
                             "[B, L_img, " + std::to_string(c.inChannels) + "]");
    const int64_t B = in.hiddenStates.size(0), li = in.hiddenStates.size(1);
    const std::string b = std::to_string(B);
    in.encoderHiddenStates =
        ck.get("in.encoder_hidden_states", {B, -1, c.jointAttentionDim},
               "[" + b + ", L_txt, " + std::to_string(c.jointAttentionDim) + "]");
    const int64_t lt = in.encoderHiddenStates.size(1);
    in.pooledProjections = ck.get("in.pooled_projections", {B, c.pooledProjectionDim},
                                  "[" + b + ", " + std::to_string(c.pooledProjectionDim) + "]");
    in.timestep = perBatch(ck, "in.timestep", B, "sigma in [0, 1]");
    if (c.guidanceEmbeds) in.guidance = perBatch(ck, "in.guidance", B, "guidance scale");
    const int64_t axes = int64_t(c.axesDimsRope.size());
    in.imgIds = ids(ck, "in.img_ids", li, axes);
    in.txtIds = ids(ck, "in.txt_ids", lt, axes);
    for (torch::Tensor* t : {&in.hiddenStates, &in.encoderHiddenStates, &in.pooledProjections,
                             &in.timestep, &in.guidance, &in.imgIds, &in.txtIds}) {
        if (t->defined()) *t = t->to(device);
    }
    return in;
}

NamedTensors runFluxTransformer(FluxTransformer& model, const NamedTensors& inputs,
                                ProbeContext& probes) {
    torch::NoGradGuard noGrad;
    FluxInputs in = fluxInputsFrom(model->config(), inputs, probes.device());
    NamedTensors out;
    out["out.sample"] = model->forward(in, probes).to(torch::kFloat32);
    return out;
}

}  // namespace hs
