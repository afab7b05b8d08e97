#include "models/common/weights.h"

#include <set>

namespace hs {

WeightMap weightMapOf(const TensorSet& set) {
    WeightMap m;
    for (const auto& name : set.names()) m.emplace(name, set.tensor(name));
    return m;
}

namespace {

std::string shapeText(c10::IntArrayRef s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

std::string modulePathOf(const std::string& component, const std::string& key) {
    auto dot = key.rfind('.');
    std::string mod = dot == std::string::npos ? "" : key.substr(0, dot);
    if (component.empty()) return mod;
    return mod.empty() ? component : component + "." + mod;
}

}  // namespace

void loadWeights(torch::nn::Module& module, const WeightMap& weights, const std::string& component,
                 const ProbeContext& probes, const std::vector<std::string>& ignoredKeys) {
    torch::NoGradGuard noGrad;
    std::set<std::string> expected;
    auto assign = [&](const std::string& key, torch::Tensor& dst, bool floating) {
        expected.insert(key);
        auto it = weights.find(key);
        if (it == weights.end())
            throw WeightError("missing tensor '" + key + "' (expected shape " +
                              shapeText(dst.sizes()) + ")");
        const torch::Tensor& src = it->second;
        if (src.sizes() != dst.sizes())
            throw WeightError("tensor '" + key + "' has shape " + shapeText(src.sizes()) +
                              ", expected " + shapeText(dst.sizes()));
        torch::Tensor v;
        if (floating && src.is_floating_point()) {
            const std::string path = modulePathOf(component, key);
            const Format f = probes.formatFor(path);
            const auto ct = computeTypeOf(f, probes.device());
            v = src.to(probes.device(), ct, /*non_blocking=*/false, /*copy=*/true);
            // Emulated: fp32 storage of values the format holds (already so when stored in it).
            if (executionFor(f, probes.device()) == Execution::Emulated &&
                src.scalar_type() != scalarTypeOf(f))
                v = roundTo(v, f);
        } else {
            v = src.to(probes.device(), dst.scalar_type(), false, true);
        }
        dst.set_data(v.contiguous());
    };
    for (auto& p : module.named_parameters(true)) assign(p.key(), p.value(), true);
    for (auto& b : module.named_buffers(true)) {
        if (weights.count(b.key()) || b.value().is_floating_point())
            assign(b.key(), b.value(), b.value().is_floating_point());
    }
    for (const auto& kv : weights) {
        if (expected.count(kv.first)) continue;
        bool ignored = false;
        for (const auto& ig : ignoredKeys) ignored |= kv.first == ig || globMatch(ig, kv.first);
        if (!ignored) throw WeightError("unexpected tensor '" + kv.first + "' in checkpoint");
    }
}

WeightMap stateOf(torch::nn::Module& module) {
    WeightMap m;
    for (auto& p : module.named_parameters(true)) m.emplace(p.key(), p.value());
    for (auto& b : module.named_buffers(true)) m.emplace(b.key(), b.value());
    return m;
}

}  // namespace hs
