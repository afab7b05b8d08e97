#include "diagnosis/image_verdict.h"

#include "base/enum_names.h"

namespace hs {

namespace {
constexpr EnumName<ImageVerdict> kVerdictNames[] = {{ImageVerdict::Ok, "ok"},
                                                    {ImageVerdict::NonFinite, "nan/inf"},
                                                    {ImageVerdict::Black, "black"},
                                                    {ImageVerdict::Flat, "flat"}};
}  // namespace

std::string verdictName(ImageVerdict v) {
    return nameIn(kVerdictNames, v);
}

Message verdictNameMessage(const std::string& name) {
    const auto v = valueNamed(kVerdictNames, name);
    if (!v) return {};
    return {*v == ImageVerdict::NonFinite ? "verdict.nonfinite" : "verdict." + name, {}};
}

ImageAssessment judgeImage(const TensorStats& stats, double meanLevel, double stdLevel,
                           double maxLevel) {
    ImageAssessment a;
    a.stats = stats;
    a.meanLevel = meanLevel;
    a.stdLevel = stdLevel;
    a.maxLevel = maxLevel;
    const auto n = [](double v) { return numberText(v); };
    Message m;
    if (!stats.allFinite()) {
        a.verdict = ImageVerdict::NonFinite;
        m = {"image.nonfinite",
             {std::to_string(stats.nan), std::to_string(stats.posInf + stats.negInf),
              std::to_string(stats.count)}};
    } else if (meanLevel < 0.02 && maxLevel < 0.1) {
        a.verdict = ImageVerdict::Black;
        m = {"image.black", {n(meanLevel), n(maxLevel)}};
    } else if (stdLevel < 0.01) {
        a.verdict = ImageVerdict::Flat;
        m = {"image.flat", {n(stdLevel), n(meanLevel)}};
    } else {
        m = {"image.ok", {n(meanLevel), n(stdLevel)}};
    }
    a.message = {m};
    a.explanation = englishText(a.message);
    return a;
}

}  // namespace hs
