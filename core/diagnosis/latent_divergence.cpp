#include "diagnosis/latent_divergence.h"

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "records/run_types.h"

namespace hs {

double relativeL2(const std::vector<float>& a, const std::vector<float>& b, bool* nonFinite) {
    if (a.size() != b.size())
        throw std::invalid_argument("latents of different sizes: " + std::to_string(a.size()) +
                                    " and " + std::to_string(b.size()) + " values");
    double num = 0, den = 0;
    bool bad = false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
            bad = true;
            break;
        }
        const double d = double(b[i]) - double(a[i]);
        num += d * d;
        den += double(a[i]) * double(a[i]);
    }
    if (nonFinite) *nonFinite = bad;
    const double inf = std::numeric_limits<double>::infinity();
    if (bad) return inf;
    if (den == 0) return num == 0 ? 0.0 : inf;
    return std::sqrt(num / den);
}

std::vector<StepDivergence> latentDivergence(const RunRecord& ref, const RunRecord& other) {
    std::map<int, std::pair<const StepRecord*, const StepRecord*>> byStep;
    for (const auto& s : ref.steps) byStep[s.step].first = &s;
    for (const auto& s : other.steps) byStep[s.step].second = &s;
    std::vector<StepDivergence> out;
    for (const auto& kv : byStep) {
        StepDivergence d;
        d.step = kv.first;
        const StepRecord* a = kv.second.first;
        const StepRecord* b = kv.second.second;
        if (!a || !b) {
            d.note = std::string("step missing in the ") + (a ? "other" : "reference") + " run";
        } else if (a->latentValues.empty() || b->latentValues.empty()) {
            d.note = "latents not kept (RunConfig::keepLatents)";
        } else if (a->latentValues.size() != b->latentValues.size()) {
            d.note = "latents of different sizes (" + std::to_string(a->latentValues.size()) +
                     " and " + std::to_string(b->latentValues.size()) + " values)";
        } else {
            d.available = true;
            d.relativeL2 = relativeL2(a->latentValues, b->latentValues, &d.nonFinite);
        }
        out.push_back(d);
    }
    return out;
}

}  // namespace hs
