#pragma once
// ComfyUI's scaled fp8 checkpoints (t5xxl_fp8_e4m3fn_scaled.safetensors,
// qwen_2.5_vl_7b_fp8_scaled.safetensors): a marker tensor "scaled_fp8" (or "<prefix>scaled_fp8",
// e.g. "model.diffusion_model.scaled_fp8": an empty tensor of the weights' fp8 dtype) and, beside
// an fp8 weight "<module>.weight", a "<module>.scale_weight" (a float32 scalar or [1]) that the
// weight is multiplied by: the weight ComfyUI's layers compute with. A "<module>.scale_input"
// (the activation scale of ComfyUI's fp8 matmul) is read and reported, not applied: Halfscope
// computes in the plan's formats, never in fp8. Without a marker these keys mean nothing special.
#include <torch/types.h>

#include <map>
#include <string>
#include <vector>

#include "io/safetensors.h"

namespace hs {

// "scaled_fp8" or "<prefix>.scaled_fp8".
bool isScaledFp8Marker(const std::string& name);
// "<module>.scale_weight" or "<module>.scale_input".
bool isFp8ScaleKey(const std::string& name);
// Whether a file with these tensors is a scaled-fp8 one (holds a marker).
bool hasScaledFp8Marker(const std::vector<StTensorInfo>& tensors);
// A marker or scale key of a scaled-fp8 file (`scaled`): not one of the model's tensors.
inline bool isScaledFp8Bookkeeping(const std::string& name, bool scaled) {
    return scaled && (isScaledFp8Marker(name) || isFp8ScaleKey(name));
}

struct ScaledFp8 {
    std::vector<std::string> markers;           // the marker tensors' names
    std::map<std::string, float> weightScales;  // "<module>.weight" -> its scale_weight
    std::map<std::string, float> inputScales;   // "<module>.weight" -> its scale_input
    bool scaled() const { return !markers.empty(); }
    // A marker or scale key of a scaled set: bookkeeping, not one of the model's tensors.
    bool isBookkeeping(const std::string& name) const {
        return isScaledFp8Bookkeeping(name, scaled());
    }
};

// Reads the markers and every scale of `set` (a few bytes each). Throws FileError naming the
// key for a scale that is not one finite floating value (shape [] or [1]) or has no weight
// beside it.
ScaledFp8 readScaledFp8(const TensorSet& set);

// set.tensor(name) (fp8 decoded into float32), times its scale_weight in float32 when it has
// one: an owning float32 tensor then, the weight the module computes with.
torch::Tensor readScaledTensor(const TensorSet& set, const std::string& name,
                               const ScaledFp8& scales);

}  // namespace hs
