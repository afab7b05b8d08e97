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

torch::Tensor requireBatchScalar(const NamedTensors& inputs, const std::string& key, int64_t B,
                                 const std::string& expected) {
    auto it = inputs.find(key);
    if (it == inputs.end())
        throw InputError("missing input '" + key + "' (expected shape " + expected + ")");
    torch::Tensor t = it->second;
    if (t.defined() && t.dim() == 0) t = t.reshape({1});
    const bool one = t.defined() && t.dim() == 1 && t.size(0) == 1;
    return checkInput(key, t, {one ? 1 : B}, expected);
}

torch::Tensor requireTokenIds(const NamedTensors& inputs, int64_t maxLength, int64_t vocabSize) {
    const std::string key = "in.input_ids";
    const std::string expected = "[B, L] integer ids with 1 <= L <= " + std::to_string(maxLength);
    auto ids = requireInput(inputs, key, {-1, -1}, expected);
    if (ids.size(0) < 1 || ids.size(1) < 1 || ids.size(1) > maxLength)
        throw InputError("input '" + key + "' has shape " + shapeText(ids.sizes()) + ", expected " +
                         expected);
    if (ids.is_floating_point() || ids.is_complex() || ids.scalar_type() == torch::kBool)
        throw InputError("input '" + key + "' must hold integer ids, got dtype " +
                         std::string(c10::toString(ids.scalar_type())));
    ids = ids.to(torch::kCPU, torch::kInt64).contiguous();
    const auto bad = (ids < 0).logical_or(ids >= vocabSize).nonzero();
    if (bad.size(0) > 0) {
        const int64_t b = bad[0][0].item<int64_t>(), l = bad[0][1].item<int64_t>();
        throw InputError("input '" + key + "' holds id " +
                         std::to_string(ids[b][l].item<int64_t>()) + " at [" + std::to_string(b) +
                         ", " + std::to_string(l) + "], outside the vocabulary [0, " +
                         std::to_string(vocabSize) + ")");
    }
    return ids;
}

}  // namespace hs
