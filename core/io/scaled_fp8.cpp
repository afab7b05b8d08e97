#include "io/scaled_fp8.h"

#include <torch/torch.h>

#include <cmath>

#include "base/affixes.h"

namespace hs {

namespace {

constexpr const char* kMarker = "scaled_fp8";
constexpr const char* kScaleSuffixes[] = {"scale_weight", "scale_input"};

// `name` is `stem` or ends with "." + `stem`.
bool isLeaf(const std::string& name, const std::string& stem) {
    return name == stem || endsWith(name, "." + stem);
}

// "<module>.weight" for "<module>.scale_weight" (or "weight" for a bare "scale_weight").
std::string weightOf(const std::string& scaleKey, const std::string& suffix) {
    return scaleKey.substr(0, scaleKey.size() - suffix.size()) + "weight";
}

// The one finite value a scale holds. Throws FileError naming the key.
float scaleValue(const TensorSet& set, const std::string& key) {
    const StTensorInfo& info = set.info(key);
    auto refuse = [&](const std::string& why) {
        throw FileError(set.source(), "scaled fp8: '" + key + "' " + why);
    };
    const bool floating = info.dtype == StDType::F32 || info.dtype == StDType::F16 ||
                          info.dtype == StDType::BF16 || info.dtype == StDType::F64;
    if (!floating) refuse("is " + stDTypeName(info.dtype) + ", expected a float32 scale");
    if (info.shape.size() > 1 || info.numel() != 1)
        refuse("has shape " + shapeString(info.shape) + ", expected one value ([] or [1])");
    const float v = set.tensor(key).to(torch::kFloat32).reshape({}).item<float>();
    set.checkIntact(key);
    if (!std::isfinite(v)) refuse("is " + std::to_string(v) + ", expected a finite scale");
    return v;
}

}  // namespace

bool isScaledFp8Marker(const std::string& name) {
    return isLeaf(name, kMarker);
}

bool isFp8ScaleKey(const std::string& name) {
    for (const char* s : kScaleSuffixes)
        if (isLeaf(name, s)) return true;
    return false;
}

bool hasScaledFp8Marker(const std::vector<StTensorInfo>& tensors) {
    for (const auto& t : tensors)
        if (isScaledFp8Marker(t.name)) return true;
    return false;
}

ScaledFp8 readScaledFp8(const TensorSet& set) {
    ScaledFp8 s;
    const std::vector<std::string> names = set.names();
    for (const auto& n : names)
        if (isScaledFp8Marker(n)) s.markers.push_back(n);
    if (!s.scaled()) return s;
    for (const auto& n : names) {
        for (const std::string suffix : kScaleSuffixes) {
            if (!isLeaf(n, suffix)) continue;
            const std::string weight = weightOf(n, suffix);
            if (!set.contains(weight))
                throw FileError(set.source(), "scaled fp8: '" + n + "' has no weight '" + weight +
                                                  "' beside it to scale");
            auto& into = suffix == "scale_weight" ? s.weightScales : s.inputScales;
            into[weight] = scaleValue(set, n);
        }
    }
    return s;
}

torch::Tensor readScaledTensor(const TensorSet& set, const std::string& name,
                               const ScaledFp8& scales) {
    torch::Tensor t = set.tensor(name);
    const auto it = scales.weightScales.find(name);
    if (it == scales.weightScales.end()) return t;
    // Both operands float32: one correctly rounded float32 product per element, as ComfyUI's
    // weight * scale_weight gives in float32.
    return t.to(torch::kFloat32) * torch::scalar_tensor(it->second, torch::kFloat32);
}

}  // namespace hs
