#pragma once
// What a final image looks like to someone who expected a picture: OK, black, flat, or holding
// NaN/Inf, with the numbers behind the verdict. No LibTorch (see pipeline/image_assessment.h).
#include <string>

#include "records/message.h"
#include "records/stats_types.h"

namespace hs {

enum class ImageVerdict { Ok, NonFinite, Black, Flat };
std::string verdictName(ImageVerdict v);  // "ok", "nan/inf", "black", "flat"
// The verdict name as a message ("verdict.black"); an empty message for an unknown name.
Message verdictNameMessage(const std::string& name);

struct ImageAssessment {
    ImageVerdict verdict = ImageVerdict::Ok;
    TensorStats stats;        // of the decoded image in [-1, 1] (before any clamping)
    double meanLevel = 0;     // mean brightness in [0, 1] after clamping, NaN as 0 (as saved)
    double stdLevel = 0;      // std of the clamped [0, 1] values
    double maxLevel = 0;      // brightest clamped value
    std::string explanation;  // englishText(message)
    MessageText message;
};

// Thresholds: black when the saved image's mean level is below 0.02 and its brightest value
// below 0.1 (a pure black PNG, as NaN images become after the usual uint8 conversion); flat when
// the std of the [0, 1] values is below 0.01. Non-finite values win over both.
ImageAssessment judgeImage(const TensorStats& stats, double meanLevel, double stdLevel,
                           double maxLevel);

}  // namespace hs
