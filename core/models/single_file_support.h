#pragma once
// What every single-file layout conversion shares: the component it produces, and the key set it
// takes tensors from, so that a missing tensor, a gap in block numbering or a tensor the layout
// does not know is an error naming the key as the file spells it.
#include <torch/types.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "models/common/config.h"
#include "models/common/weights.h"

namespace hs {

// One component of a single-file checkpoint, in the form a diffusers/transformers folder has.
struct ConvertedComponent {
    std::string slot;       // its model_index.json key: "transformer", "vae", "text_encoder"
    std::string className;  // "FluxTransformer2DModel", "AutoencoderKL", "CLIPTextModel" ...
    nlohmann::json config;  // a config.json the family's reader accepts, inferred from shapes
    WeightMap weights;      // diffusers/transformers keys; views into the file where possible
    std::string description = {};  // one line for `inspect`, saying what was assumed
};

// The tensors of one layout in one file, their file prefix removed ("model.diffusion_model.").
// A conversion take()s what it needs; finish() then refuses anything left over.
class LayoutKeys {
public:
    LayoutKeys(WeightMap keys, std::string prefix, std::string layout, std::string path);

    bool has(const std::string& key) const { return m_keys.count(key) > 0; }
    // The keys not taken yet, sorted.
    std::vector<std::string> keys() const;
    // The tensor, removed from the set. Throws WeightError naming the key when it is absent or,
    // given `dims`, has another number of dimensions.
    torch::Tensor take(const std::string& key, int64_t dims = -1);
    // `from`.weight and `from`.bias taken into `out` as `to`.weight and `to`.bias.
    void movePair(WeightMap& out, const std::string& from, const std::string& to);
    // take() when present, else an undefined tensor.
    torch::Tensor takeIfPresent(const std::string& key);
    // Looks without taking (throws like take() when absent).
    const torch::Tensor& peek(const std::string& key) const;
    // Size `dim` of `key`'s tensor, which must lie in [lo, hi]: every size a conversion divides
    // by, multiplies or writes into a config comes through here, as a file may hold zero-sized
    // tensors (legal safetensors) or sizes no model has. Throws WeightError naming the key.
    int64_t size(const std::string& key, int64_t dim, int64_t lo = 1,
                 int64_t hi = kMaxLayoutSize) const;
    static constexpr int64_t kMaxLayoutSize = int64_t(1) << 24;  // vocabularies, widths, counts
    // size() of `t`, a tensor already taken from `key`.
    int64_t sizeOf(const torch::Tensor& t, const std::string& key, int64_t dim, int64_t lo = 1,
                   int64_t hi = kMaxLayoutSize) const;
    // peek() of a 2-D weight ([out, in]); another rank is a WeightError naming the key.
    const torch::Tensor& matrix(const std::string& key) const;
    // size() of a 2-D weight.
    int64_t matrixSize(const std::string& key, int64_t dim) const;
    // n / by for a width `what` read from `key`; a WeightError naming the key unless `by` >= 1
    // divides n.
    int64_t quotient(int64_t n, int64_t by, const std::string& what, const std::string& key) const;
    // How many blocks "<head>N." numbers from 0: max N + 1. A missing N below that is a
    // WeightError naming "<prefix><head>N". 0 when there is none.
    int countBlocks(const std::string& head, const std::string& what) const;
    // Throws WeightError listing (up to five) keys nobody took.
    void finish() const;

    // "<path>: <layout>: " + what, for errors.
    std::string where() const { return m_path + ": " + m_layout + ": "; }
    // The key as the file spells it.
    std::string fileKey(const std::string& key) const { return m_prefix + key; }
    const std::string& prefix() const { return m_prefix; }
    // The most common floating dtype among the tensors given: "bf16", "fp16", "fp32" ...
    const std::string& dtypeName() const { return m_dtype; }
    [[noreturn]] void fail(const std::string& what) const;

private:
    WeightMap m_keys;
    std::string m_prefix, m_layout, m_path, m_dtype;
};

// A parameter count as inspect and the conversions' descriptions write it: "0.86 B", "2.45 M",
// "54.9 k".
std::string parameterCountText(int64_t n);

// "bf16" for kBFloat16, "fp16", "fp32", "fp64", else the ScalarType's name.
std::string dtypeShortName(c10::ScalarType t);

// The most common floating dtype of a file, by elements: "fp16 weights".
std::string weightsDtypeText(const WeightMap& all);

// Elements of a converted component's weights.
int64_t parameterCountOf(const WeightMap& weights);

}  // namespace hs
