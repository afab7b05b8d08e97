#pragma once
// Tensors by the key names of the golden files and `halfscope-cli run-module`: inputs "in.*",
// outputs "out.*"; and the checks that name the key and the expected shape of a bad input.
#include <torch/torch.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

using NamedTensors = std::map<std::string, torch::Tensor>;

// Thrown for a missing or mis-shaped input: names the key and the expected shape.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Rejects keys starting with "in." that are not in `known` (others are ignored): "unexpected
// input 'in.foo' (<family> takes in.a, in.b)".
void checkInputKeys(const NamedTensors& inputs, const std::vector<std::string>& known,
                    const std::string& family);

// The tensor `key`, checked against `shape` (-1: any size); `expected` describes the shape for
// the message. Floating unless the key names ids or a mask.
torch::Tensor requireInput(const NamedTensors& inputs, const std::string& key,
                           const std::vector<int64_t>& shape, const std::string& expected);
// A per-sample number (timestep, guidance) under `key`: [B], [1] or a scalar -> [B] or [1], not
// expanded; `expected` describes it for the message.
torch::Tensor requireBatchScalar(const NamedTensors& inputs, const std::string& key, int64_t B,
                                 const std::string& expected);
// A text encoder's in.input_ids: [B, L] integer ids, 1 <= L <= maxLength, each in
// [0, vocabSize) -> int64 on the CPU.
torch::Tensor requireTokenIds(const NamedTensors& inputs, int64_t maxLength, int64_t vocabSize);
// `t` checked as above.
torch::Tensor checkInput(const std::string& key, const torch::Tensor& t,
                         const std::vector<int64_t>& shape, const std::string& expected);

}  // namespace hs
