#include "models/common/weights.h"

#include "io/safetensors.h"
#include "pipeline/cancel.h"
#include "pipeline/load_progress.h"

namespace hs {

WeightMap weightMapOf(const TensorSet& set) {
    WeightMap m;
    for (const auto& name : set.names()) m.emplace(name, set.tensor(name));
    return m;
}

std::string shapeText(c10::IntArrayRef s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

namespace {

std::string modulePathOf(const std::string& component, const std::string& key) {
    auto dot = key.rfind('.');
    std::string mod = dot == std::string::npos ? "" : key.substr(0, dot);
    if (component.empty()) return mod;
    return mod.empty() ? component : component + "." + mod;
}

// The module's tensors a checkpoint must hold: parameters, and buffers that are floating or
// present in the checkpoint (integer index buffers are rebuilt, not stored).
template <typename Fn>
void forEachStored(torch::nn::Module& module, const WeightMap& weights, Fn fn) {
    for (auto& p : module.named_parameters(true)) fn(p.key(), p.value(), true);
    for (auto& b : module.named_buffers(true))
        if (weights.count(b.key()) || b.value().is_floating_point())
            fn(b.key(), b.value(), b.value().is_floating_point());
}

}  // namespace

void checkWeights(torch::nn::Module& module, const WeightMap& weights,
                  const std::vector<std::string>& ignoredKeys) {
    size_t expected = 0;
    forEachStored(module, weights, [&](const std::string& key, torch::Tensor& dst, bool) {
        ++expected;
        auto it = weights.find(key);
        if (it == weights.end())
            throw WeightError("missing tensor '" + key + "' (expected shape " +
                              shapeText(dst.sizes()) + ")");
        if (it->second.sizes() != dst.sizes())
            throw WeightError("tensor '" + key + "' has shape " + shapeText(it->second.sizes()) +
                              ", expected " + shapeText(dst.sizes()));
    });
    if (weights.size() == expected) return;
    std::map<std::string, bool> known;
    forEachStored(module, weights,
                  [&](const std::string& key, torch::Tensor&, bool) { known[key] = true; });
    for (const auto& kv : weights) {
        if (known.count(kv.first)) continue;
        bool ignored = false;
        for (const auto& ig : ignoredKeys) ignored |= kv.first == ig || globMatch(ig, kv.first);
        if (!ignored) throw WeightError("unexpected tensor '" + kv.first + "' in checkpoint");
    }
}

void loadWeights(torch::nn::Module& module, const WeightMap& weights, const std::string& component,
                 const PrecisionPolicy& policy, const std::vector<std::string>& ignoredKeys) {
    checkWeights(module, weights, ignoredKeys);
    torch::NoGradGuard noGrad;
    forEachStored(module, weights, [&](const std::string& key, torch::Tensor& dst, bool floating) {
        dst.set_data(
            convertWeight(weights.at(key), dst.scalar_type(), floating, component, key, policy));
    });
}

torch::Tensor convertWeight(const torch::Tensor& src, torch::ScalarType dstType, bool floating,
                            const std::string& component, const std::string& key,
                            const PrecisionPolicy& policy) {
    torch::NoGradGuard noGrad;
    throwIfCancelled();  // a load stops within one tensor (pipeline/cancel.h)
    const torch::Device device = policy.device();
    torch::Tensor v;
    if (floating && src.is_floating_point()) {
        const std::string path = modulePathOf(component, key);
        const auto& info = policy.info(path);
        v = src.to(device, policy.computeTypeFor(path), /*non_blocking=*/false, /*copy=*/true);
        // Emulated: fp32 storage of values the format holds (already so when stored in it).
        if (info.execution == Execution::Emulated && src.scalar_type() != scalarTypeOf(info.format))
            v = roundTo(v, info.format);
    } else {
        v = src.to(device, dstType, false, true);
    }
    // `src` may view a mapped file that shrank while it was read: the read gave zeros instead
    // of a SIGBUS, and this turns them into the file's error (io/safetensors.h).
    checkMappedTensor(src);
    // Counts toward the load's progress (pipeline/load_progress.h), when a load is reporting.
    noteWeightRead(src.device().is_cpu() ? src.data_ptr() : nullptr,
                   uint64_t(src.numel()) * src.element_size());
    return v.contiguous();
}

WeightMap stateOf(torch::nn::Module& module) {
    WeightMap m;
    for (auto& p : module.named_parameters(true)) m.emplace(p.key(), p.value());
    for (auto& b : module.named_buffers(true)) m.emplace(b.key(), b.value());
    return m;
}

}  // namespace hs
