#include "models/common/weights.h"

#include <algorithm>
#include <optional>

#include "base/cancel.h"
#include "base/load_progress.h"
#include "io/safetensors.h"
#include "io/scaled_fp8.h"
#include "models/common/layers.h"
#include "models/common/weight_convert.h"

namespace hs {

WeightMap weightMapOf(const TensorSet& set) {
    // ComfyUI's scaled fp8: each weight times its scale_weight; the marker and the scales are
    // bookkeeping, not tensors of the model (io/scaled_fp8.h).
    const ScaledFp8 scales = readScaledFp8(set);
    WeightMap m;
    for (const auto& name : set.names())
        if (!scales.isBookkeeping(name)) m.emplace(name, readScaledTensor(set, name, scales));
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
    setTf32Modes(module, component, policy);
}

void setTf32Modes(torch::nn::Module& module, const std::string& component,
                  const PrecisionPolicy& policy) {
    auto set = [&](torch::nn::Module& m, const std::string& name) {
        auto* layer = dynamic_cast<nn::Tf32Layer*>(&m);
        if (!layer) return;
        const auto& info = policy.info(modulePathOf(component, name + ".weight"));
        layer->tf32 = info.format != Format::TF32           ? nn::Tf32Mode::Off
                      : info.execution == Execution::Native ? nn::Tf32Mode::Native
                                                            : nn::Tf32Mode::Emulated;
    };
    set(module, "");  // a module held by value cannot hand itself out as a shared_ptr
    for (const auto& item : module.named_modules("", /*include_self=*/false))
        set(*item.value(), item.key());
}

torch::Tensor convertWeight(const torch::Tensor& src, torch::ScalarType dstType, bool floating,
                            const std::string& component, const std::string& key,
                            const PrecisionPolicy& policy) {
    return convertWeightInChunks(src, dstType, floating, component, key, policy, kWeightChunkBytes);
}

torch::Tensor convertWeightInChunks(const torch::Tensor& stored, torch::ScalarType dstType,
                                    bool floating, const std::string& component,
                                    const std::string& key, const PrecisionPolicy& policy,
                                    uint64_t chunkBytes) {
    torch::NoGradGuard noGrad;
    throwIfCancelled();  // a load stops within one slice of a tensor (base/cancel.h)
    const torch::Device device = policy.device();
    torch::ScalarType type = dstType;
    std::optional<Format> rounding;  // emulated: fp32 storage of values the format holds
    torch::Tensor src = stored;
    if (floating && src.is_floating_point()) {
        const std::string path = modulePathOf(component, key);
        const auto& info = policy.info(path);
        type = policy.computeTypeFor(path);
        // An fp8 rule: the weight matrix as fp8 with one scale holds it (precision_plan.h),
        // whole (the scale is the tensor's), in float32; then the module's format as usual.
        const bool matrix =
            src.dim() >= 2 && key.size() >= 6 && key.compare(key.size() - 6, 6, "weight") == 0;
        if (info.fp8Weights && matrix) {
            src = fp8ScaledWeight(stored, *info.fp8Weights);
            checkMappedTensor(stored);
            noteWeightRead(stored.device().is_cpu() ? stored.data_ptr() : nullptr,
                           uint64_t(stored.numel()) * stored.element_size());
            chunkBytes = 0;  // one copy already made: converted whole, counted above
        }
        // Already so when stored in the format.
        // tf32 stores fp32: its rounding is of the products' operands (layers.h), not here.
        if (info.execution == Execution::Emulated && !storesFp32(info.format) &&
            src.scalar_type() != scalarTypeOf(info.format))
            rounding = info.format;
    }
    const uint64_t bytes = uint64_t(src.numel()) * src.element_size();
    const int64_t rows = src.dim() > 0 ? src.size(0) : 0;
    torch::Tensor v;
    if (chunkBytes == 0 || bytes <= chunkBytes || rows < 2) {
        v = src.to(device, type, /*non_blocking=*/false, /*copy=*/true);
        if (rounding) v = roundTo(v, *rounding);
        v = v.contiguous();
        if (src.is_same(stored)) {
            checkMappedTensor(src);
            // Counts toward the load's progress (base/load_progress.h), when a load reports.
            noteWeightRead(src.device().is_cpu() ? src.data_ptr() : nullptr, bytes);
        }
        return v;
    }
    // The result once, then each slice of rows cast into its place: copy_ casts exactly as to()
    // does (to() is an empty tensor plus copy_), and rounding is elementwise, so the slices give
    // the one-shot bits. Rounding a slice at a time keeps the peak at the result plus one slice
    // (the one-shot path holds two full tensors while it rounds).
    v = torch::empty(src.sizes(), torch::TensorOptions().dtype(type).device(device));
    const uint64_t rowBytes = bytes / uint64_t(rows);
    const int64_t step =
        std::max<int64_t>(1, int64_t(chunkBytes / std::max<uint64_t>(rowBytes, 1)));
    for (int64_t r = 0; r < rows; r += step) {
        if (r > 0) throwIfCancelled();
        const int64_t n = std::min(step, rows - r);
        const torch::Tensor from = src.narrow(0, r, n);  // [n, ...] view, maybe of a mapped file
        torch::Tensor to = v.narrow(0, r, n);            // [n, ...] contiguous rows of v
        if (rounding)  // cast (a view when `from` has the type already), round, place
            to.copy_(roundTo(from.to(device, type), *rounding));
        else
            to.copy_(from);
        // A mapped file that shrank gave zeros instead of a SIGBUS: its error, not its zeros.
        checkMappedTensor(from);
        noteWeightRead(from.device().is_cpu() ? from.data_ptr() : nullptr, uint64_t(n) * rowBytes);
    }
    return v;
}

WeightMap stateOf(torch::nn::Module& module) {
    WeightMap m;
    for (auto& p : module.named_parameters(true)) m.emplace(p.key(), p.value());
    for (auto& b : module.named_buffers(true)) m.emplace(b.key(), b.value());
    return m;
}

}  // namespace hs
