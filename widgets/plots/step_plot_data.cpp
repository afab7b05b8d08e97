#include "step_plot_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "diagnosis/headroom.h"
#include "records/format_types.h"
#include "view_number.h"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double bf16Max() {
    return hs::limitsOf(hs::Format::BF16).maxFinite;
}

// Near the fp16 limit the digits decide the band: 65519.99 must not read as 6.552e+04.
QString magnitudeText(double v) {
    return v < 1e6 ? viewNumber(v, 7) : viewNumber(v);
}

}  // namespace

void StepPlotData::setRunLabels(const QStringList& labels) {
    m_labels = labels;
    m_runs.resize(size_t(labels.size()));
}

void StepPlotData::addStep(int r, const hs::StepRecord& step) {
    Point& p = m_runs[size_t(r)][step.step];
    p.sigma = step.sigma;
    p.stats[0] = step.latent;
    p.stats[1] = step.denoised;
    p.stats[2] = step.velocity;
}

void StepPlotData::clear() {
    for (auto& r : m_runs) r.clear();
}

void StepPlotData::setStepCount(int steps) {
    m_stepCount = std::max(0, steps);
}

void StepPlotData::setSeriesVisible(Series s, bool visible) {
    if (s < 0 || s >= SeriesCount) return;
    m_visible[s] = visible;
}

bool StepPlotData::isSigned(Series s) {
    return s == Min || s == Max || s == Mean;
}

double StepPlotData::valueOf(const hs::TensorStats& st, Series s) {
    switch (s) {
        case Min:
            return st.min;
        case Max:
            return st.max;
        case AbsMax:
            return st.absMax;
        case Mean:
            return st.mean;
        case Std:
            return st.std;
        case NanCount:
            return double(st.nan);
        case InfCount:
            return double(st.posInf + st.negInf);
        default:
            return kNaN;
    }
}

void StepPlotData::curve(int r, Series s, QVector<double>* keys, QVector<double>* values) const {
    const Run& points = m_runs[size_t(r)];
    keys->clear();
    values->clear();
    keys->reserve(int(points.size()));
    values->reserve(int(points.size()));
    for (const auto& kv : points) {
        double v = valueOf(statsOf(kv.second), s);
        // QCustomPlot leaves a gap at NaN instead of drawing a false value.
        if (!std::isfinite(v) || (m_log && s < NanCount && v <= 0)) v = kNaN;
        if (s >= NanCount && v == 0) v = kNaN;
        *keys << kv.first;
        *values << v;
    }
}

StepPlotRange StepPlotData::stepRange() const {
    double lo = 0, hi = 9;
    if (m_stepCount > 0) {
        hi = m_stepCount - 1;
    } else {
        bool any = false;
        for (const Run& r : m_runs) {
            if (r.empty()) continue;
            lo = any ? std::min(lo, double(r.begin()->first)) : r.begin()->first;
            hi = any ? std::max(hi, double(r.rbegin()->first)) : r.rbegin()->first;
            any = true;
        }
        if (!any) lo = 0, hi = 9;
    }
    return {lo - 0.5, hi + 0.5};
}

StepPlotRange StepPlotData::valueRange() const {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Run& r : m_runs) {
        for (const auto& kv : r) {
            const hs::TensorStats& st = statsOf(kv.second);
            for (int s = 0; s < NanCount; ++s) {
                if (!seriesShown(Series(s))) continue;
                const double v = valueOf(st, Series(s));
                if (std::isfinite(v) && (!m_log || v > 0)) {
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            }
        }
    }
    const bool any = lo <= hi;
    if (m_log) {
        if (!any) lo = 1e-3, hi = hs::kFp16Max;
        double upper = std::max(hi, hs::kFp16Max) * 4;
        if (hi * 1e6 >= bf16Max()) upper = std::max(upper, bf16Max() * 4);
        return {std::min(lo / 3, upper / 1e3), upper};
    }
    if (!any) lo = -1, hi = 1;
    const double big = std::max(std::fabs(lo), std::fabs(hi));
    if (big >= hs::kFp16Max / 8) {
        if (hi > 0) hi = std::max(hi, hs::kFp16Max);
        if (lo < 0) lo = std::min(lo, -hs::kFp16Max);
    }
    const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(1.0, std::fabs(hi) * 0.1);
    return {lo - pad, hi + pad};
}

StepPlotRange StepPlotData::countRange() const {
    double count = 0;
    for (const Run& r : m_runs)
        for (const auto& kv : r)
            for (Series s : {NanCount, InfCount})
                if (seriesShown(s)) count = std::max(count, valueOf(statsOf(kv.second), s));
    const double upper = std::max(1.0, count * 1.15);
    return {-upper * 0.03, upper};
}

bool StepPlotData::limitShown(double v, const StepPlotRange& range) const {
    return range.contains(v) && (!m_log || v > 0);
}

double StepPlotData::largestMagnitude() const {
    double absMax = 0;
    for (const Run& r : m_runs)
        for (const auto& kv : r) {
            const double v = statsOf(kv.second).absMax;
            if (std::isfinite(v)) absMax = std::max(absMax, v);
        }
    return absMax;
}

int StepPlotData::nearestStep(double x) const {
    int best = -1;
    double bestDist = std::numeric_limits<double>::infinity();
    for (const Run& r : m_runs) {
        for (const auto& kv : r) {
            const double d = std::fabs(kv.first - x);
            if (d < bestDist) bestDist = d, best = kv.first;
        }
    }
    return best;
}

QString StepPlotData::magnitudeNote(double absMax) {
    if (absMax >= hs::kFp16OverflowThreshold)
        return tr("Largest |x| %1 is at or above the fp16 overflow threshold %2: it would be Inf "
                  "in "
                  "fp16 (largest finite fp16 value %3).")
            .arg(magnitudeText(absMax), viewNumber(hs::kFp16OverflowThreshold),
                 viewNumber(hs::kFp16Max));
    if (absMax > hs::kFp16Max)
        return tr("Largest |x| %1 is past the fp16 limit %2 but below %3: it rounds to %2 in fp16 "
                  "(saturates).")
            .arg(magnitudeText(absMax), viewNumber(hs::kFp16Max),
                 viewNumber(hs::kFp16OverflowThreshold));
    const double headroom = hs::kFp16Max / absMax;
    return tr("Largest |x| %1: headroom to the fp16 limit %2x (2^%3).")
        .arg(viewNumber(absMax), viewNumber(headroom, 3),
             QString::number(std::log2(headroom), 'f', 1));
}

QString StepPlotData::limitNote() const {
    const double absMax = largestMagnitude();
    QStringList firstBad;
    for (size_t r = 0; r < m_runs.size(); ++r) {
        int first = -1;
        for (const auto& kv : m_runs[r]) {
            if (statsOf(kv.second).nonFinite() > 0) {
                first = kv.first;
                break;
            }
        }
        if (first >= 0)
            firstBad << tr("%1 from step %2").arg(m_labels.value(int(r)), QString::number(first));
    }
    const StepPlotRange y = valueRange();
    QStringList parts;
    if (absMax > 0) parts << magnitudeNote(absMax);
    if (!firstBad.isEmpty()) parts << tr("NaN/Inf in the latent: %1.").arg(firstBad.join(", "));
    if (!limitShown(hs::kFp16Max, y) && absMax > 0 && !m_log)
        parts << tr("fp16 limit off scale (tick Log scale to see it).");
    if (!limitShown(bf16Max(), y) && absMax > 0) {
        const double decades = std::log10(bf16Max() / std::max(absMax, 1e-30));
        parts << tr("bf16 limit %1 off scale, %2 decades above the data.")
                     .arg(viewNumber(bf16Max(), 3), QString::number(decades, 'f', 0));
    }
    return parts.join(' ');
}
