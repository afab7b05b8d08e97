#pragma once
// The verdict of diagnosis/image_verdict.h for a decoded image tensor.
#include <torch/types.h>

#include "diagnosis/image_verdict.h"

namespace hs {

// image: [C, H, W] (or any shape) in [-1, 1] nominal, before clamping.
ImageAssessment assessImage(const torch::Tensor& image);

}  // namespace hs
