#include "diagnosis/image_verdict.h"

#include <torch/torch.h>

#include <sstream>

namespace hs {

std::string verdictName(ImageVerdict v) {
    switch (v) {
        case ImageVerdict::Ok: return "ok";
        case ImageVerdict::NonFinite: return "nan/inf";
        case ImageVerdict::Black: return "black";
        case ImageVerdict::Flat: return "flat";
    }
    return "?";
}

ImageAssessment assessImage(const torch::Tensor& image) {
    ImageAssessment a;
    a.stats = computeStats(image);
    // What a pipeline saves: (x / 2 + 0.5).clamp(0, 1), NaN -> 0 in the uint8 conversion.
    auto saved = torch::nan_to_num((image.to(torch::kFloat32) / 2 + 0.5).clamp(0, 1), 0.0, 1.0, 0.0);
    a.meanLevel = saved.numel() ? saved.mean().item<double>() : 0.0;
    a.stdLevel = saved.numel() > 1 ? saved.std().item<double>() : 0.0;
    const double maxLevel = saved.numel() ? saved.max().item<double>() : 0.0;
    std::ostringstream s;
    if (!a.stats.allFinite()) {
        a.verdict = ImageVerdict::NonFinite;
        s << a.stats.nan << " NaN and " << a.stats.posInf + a.stats.negInf << " Inf values of "
          << a.stats.count << "; saved as a PNG they turn black";
    } else if (a.meanLevel < 0.02 && maxLevel < 0.1) {
        a.verdict = ImageVerdict::Black;
        s << "mean level " << a.meanLevel << ", brightest " << maxLevel;
    } else if (a.stdLevel < 0.01) {
        a.verdict = ImageVerdict::Flat;
        s << "std " << a.stdLevel << " around level " << a.meanLevel;
    } else {
        s << "mean level " << a.meanLevel << ", std " << a.stdLevel;
    }
    a.explanation = s.str();
    return a;
}

}  // namespace hs
