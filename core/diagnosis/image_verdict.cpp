#include "diagnosis/image_verdict.h"

#include <sstream>

namespace hs {

std::string verdictName(ImageVerdict v) {
    switch (v) {
        case ImageVerdict::Ok:
            return "ok";
        case ImageVerdict::NonFinite:
            return "nan/inf";
        case ImageVerdict::Black:
            return "black";
        case ImageVerdict::Flat:
            return "flat";
    }
    return "?";
}

ImageAssessment judgeImage(const TensorStats& stats, double meanLevel, double stdLevel,
                           double maxLevel) {
    ImageAssessment a;
    a.stats = stats;
    a.meanLevel = meanLevel;
    a.stdLevel = stdLevel;
    a.maxLevel = maxLevel;
    std::ostringstream s;
    if (!stats.allFinite()) {
        a.verdict = ImageVerdict::NonFinite;
        s << stats.nan << " NaN and " << stats.posInf + stats.negInf << " Inf values of "
          << stats.count << "; saved as a PNG they turn black";
    } else if (meanLevel < 0.02 && maxLevel < 0.1) {
        a.verdict = ImageVerdict::Black;
        s << "mean level " << meanLevel << ", brightest " << maxLevel;
    } else if (stdLevel < 0.01) {
        a.verdict = ImageVerdict::Flat;
        s << "std " << stdLevel << " around level " << meanLevel;
    } else {
        s << "mean level " << meanLevel << ", std " << stdLevel;
    }
    a.explanation = s.str();
    return a;
}

}  // namespace hs
