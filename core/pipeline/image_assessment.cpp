#include "pipeline/image_assessment.h"

#include <torch/torch.h>

#include "numerics/tensor_stats.h"

namespace hs {

ImageAssessment assessImage(const torch::Tensor& image) {
    // What a pipeline saves: (x / 2 + 0.5).clamp(0, 1), NaN -> 0 in the uint8 conversion.
    auto saved =
        torch::nan_to_num((image.to(torch::kFloat32) / 2 + 0.5).clamp(0, 1), 0.0, 1.0, 0.0);
    const bool any = saved.numel() > 0;
    return judgeImage(computeStats(image), any ? saved.mean().item<double>() : 0.0,
                      saved.numel() > 1 ? saved.std().item<double>() : 0.0,
                      any ? saved.max().item<double>() : 0.0);
}

}  // namespace hs
