#include "diagnosis/headroom.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "diagnosis/blocks.h"
#include "diagnosis/first_failure.h"
#include "records/run_types.h"

namespace hs {

double fp16HeadroomBits(double maxAbs) {
    if (std::isnan(maxAbs)) return maxAbs;
    if (maxAbs <= 0) return std::numeric_limits<double>::infinity();
    return std::log2(kFp16Max / maxAbs);
}

HeadroomReport analyzeHeadroom(const RunRecord& run, const HeadroomOptions& options) {
    HeadroomReport r;
    const auto failure = findFirstFailure(run);
    if (failure) {
        r.reliable = false;
        r.noteMessage = {{"headroom.unreliable", {failure->point}}};
        r.note = englishText(r.noteMessage);
    }
    std::unordered_map<std::string, size_t> byName;
    for (size_t i = 0; i < run.probes.size(); ++i) {
        const ProbeRecord& p = run.probes[i];
        auto it = byName.find(p.name);
        if (it == byName.end()) {
            PointHeadroom h;
            h.name = p.name;
            h.block = blockOf(p.name);
            h.component = componentOf(p.name);
            h.granularity = p.granularity;
            h.firstIndex = i;
            h.peakStep = p.step;
            if (options.targetPlan)
                h.runsInFp16 = options.targetPlan->resolve(p.name) == Format::FP16;
            h.afterFailure = failure && failure->fromProbe && i >= failure->probeIndex;
            it = byName.emplace(p.name, r.points.size()).first;
            r.points.push_back(std::move(h));
        }
        PointHeadroom& h = r.points[it->second];
        ++h.records;
        const double m = p.stats.absMax;  // NaN when the record held no finite value
        if (!std::isnan(m) && m > h.maxAbs) {
            h.maxAbs = m;
            h.peakStep = p.step;
        }
        if (p.stats.overFp16 > h.overFp16) h.overFp16 = p.stats.overFp16;
        const bool over = !std::isnan(m) && m >= kFp16OverflowThreshold;
        if (over && !h.overflows) {
            h.overflows = true;
            h.firstOverflowStep = p.step;
        }
        if (over && h.runsInFp16 && !r.firstFailure)
            r.firstFailure = PredictedFailure{p.name, h.block, p.step, m, i};
    }
    r.minHeadroomBits = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < r.points.size(); ++i) {
        PointHeadroom& h = r.points[i];
        h.headroomBits = fp16HeadroomBits(h.maxAbs);
        h.saturates = !h.overflows && h.maxAbs > kFp16Max;
        if (!h.runsInFp16) continue;
        if (h.headroomBits < r.minHeadroomBits) r.minHeadroomBits = h.headroomBits;
        if (h.overflows) r.overflowing.push_back(i);
    }
    return r;
}

}  // namespace hs
