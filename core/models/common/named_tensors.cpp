#include "models/common/named_tensors.h"

#include "models/common/weights.h"

namespace hs {

void checkInputKeys(const NamedTensors& inputs, const std::vector<std::string>& known,
                    const std::string& family) {
    for (const auto& kv : inputs) {
        if (kv.first.rfind("in.", 0) != 0) continue;  // outputs and other keys are ignored
        bool ok = false;
        for (const auto& k : known) ok |= kv.first == k;
        if (ok) continue;
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw InputError("unexpected input '" + kv.first + "' (" + family + " takes " + list + ")");
    }
}

torch::Tensor checkInput(const std::string& key, const torch::Tensor& t,
                         const std::vector<int64_t>& shape, const std::string& expected) {
    bool ok = t.defined() && t.dim() == int64_t(shape.size());
    for (size_t i = 0; ok && i < shape.size(); ++i) ok = shape[i] < 0 || t.size(i) == shape[i];
    if (!ok)
        throw InputError("input '" + key + "' has shape " +
                         (t.defined() ? shapeText(t.sizes()) : std::string("<undefined>")) +
                         ", expected " + expected);
    if (!t.is_floating_point() && key.find("ids") == std::string::npos &&
        key.find("mask") == std::string::npos)
        throw InputError("input '" + key + "' must be a floating tensor, got " +
                         std::string(c10::toString(t.scalar_type())));
    return t;
}

torch::Tensor requireInput(const NamedTensors& inputs, const std::string& key,
                           const std::vector<int64_t>& shape, const std::string& expected) {
    auto it = inputs.find(key);
    if (it == inputs.end())
        throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
    return checkInput(key, it->second, shape, expected);
}

}  // namespace hs
