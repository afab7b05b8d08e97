#include "pipeline/precision_search.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/cancel.h"
#include "base/work_progress.h"
#include "pipeline/precision_searcher.h"

namespace hs {

double imageDifference(const PreviewImage& a, const PreviewImage& b) {
    if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size() || a.rgb.empty())
        return 1.0;
    double sum = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(int(a.rgb[i]) - int(b.rgb[i]));
    return sum / (255.0 * double(a.rgb.size()));
}

double imageMse(const PreviewImage& a, const PreviewImage& b) {
    if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size() || a.rgb.empty())
        return std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) {
        const double d = int(a.rgb[i]) - int(b.rgb[i]);
        sum += d * d;
    }
    return sum / double(a.rgb.size());
}

PrecisionSearch searchPrecision(const RunConfig& config, const PrecisionSearchOptions& o) {
    PrecisionSearcher searcher(config, o);
    // Loads and reloads between trials stop within one tensor, runs within one block.
    CancelScope scope(o.cancel);
    const QuietRuns shortTrials;  // the trials report as trials, not as runs
    try {
        searcher.run();
    } catch (const Cancelled&) {
        // Cancelled in the failing or the reference run (the bisection catches its own).
        searcher.outcome().result.status = BisectionStatus::Cancelled;
        searcher.outcome().result.message = "the search was cancelled before the bisection began";
    }
    return std::move(searcher.outcome());
}

}  // namespace hs
