#pragma once
// What StepPlot shows, apart from drawing it: the steps of each run, which series are drawn, the
// axis ranges on the linear and the log scale, and the note about the fp16 and bf16 limits.
// Qt Core types only (no widget, no QCustomPlot), so these rules are tested on their own.
//
// Log scale: |max| and std are magnitudes (>= 0); min, max and mean are signed and are not
// drawn. Values <= 0 leave a gap. The fp16 limit is always in range; the bf16 limit (3.39e38)
// joins it only when the data come within 6 decades of it.
// Linear scale: the fp16 limit joins the range once the data are within 3 bits of it (|x| >=
// 65504 / 8), the point where it starts to matter.
//
// The note names the fp16 band of the largest |x| as core/diagnosis/headroom.h defines them:
// up to 65504 (kFp16Max) it is stored as it is (the note gives the headroom); above 65504 and
// below 65520 (kFp16OverflowThreshold) fp16 rounds it back to 65504 (it saturates, finite);
// from 65520 on it rounds to 2^16, which fp16 cannot hold: Inf.
#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QVector>
#include <map>
#include <vector>

#include "records/run_types.h"

// A closed axis range [lower, upper].
struct StepPlotRange {
    double lower = 0;
    double upper = 0;
    bool contains(double v) const { return lower <= v && v <= upper; }
};

class StepPlotData {
    // The note's strings keep StepPlot as their translation context: they were written there,
    // and the translations follow them.
    Q_DECLARE_TR_FUNCTIONS(StepPlot)
public:
    enum Series { Min, Max, AbsMax, Mean, Std, NanCount, InfCount, SeriesCount };
    enum class Tensor { Latent, Denoised, Velocity };

    struct Point {
        double sigma = 0;
        hs::TensorStats stats[3];  // latent, denoised, velocity
    };
    using Run = std::map<int, Point>;  // step -> point

    // One run per label, in order; steps of runs that remain are kept.
    void setRunLabels(const QStringList& labels);
    const QStringList& runLabels() const { return m_labels; }
    int runCount() const { return int(m_labels.size()); }
    const Run& run(int r) const { return m_runs[size_t(r)]; }
    // Stores one step of run `r` (0 <= r < runCount()); a step already there is replaced.
    void addStep(int r, const hs::StepRecord& step);
    void clear();  // every step goes, the runs and their labels stay

    // The x range covers steps 0 .. steps-1; 0 fits the data.
    void setStepCount(int steps);
    int stepCount() const { return m_stepCount; }
    void setLogScale(bool on) { m_log = on; }
    bool logScale() const { return m_log; }
    void setTensor(Tensor t) { m_tensor = t; }
    Tensor tensor() const { return m_tensor; }
    void setSeriesVisible(Series s, bool visible);
    bool seriesVisible(Series s) const { return m_visible[s]; }

    static bool isSigned(Series s);  // min, max, mean
    static double valueOf(const hs::TensorStats& st, Series s);
    const hs::TensorStats& statsOf(const Point& p) const { return p.stats[int(m_tensor)]; }
    // Chosen by the user and drawable on the current scale.
    bool seriesShown(Series s) const { return m_visible[s] && !(m_log && isSigned(s)); }

    // The points of one curve; NaN where nothing is drawn: no finite value, <= 0 on the log
    // scale, and NaN / Inf counts of zero (no line crawling along the bottom).
    void curve(int r, Series s, QVector<double>* keys, QVector<double>* values) const;

    StepPlotRange stepRange() const;   // x axis
    StepPlotRange valueRange() const;  // left axis: the shown value series, the limits
    StepPlotRange countRange() const;  // right axis: NaN and Inf counts
    // Whether a limit line at `v` is drawn on a value axis showing `range`.
    bool limitShown(double v, const StepPlotRange& range) const;

    // The largest finite |x| of the chosen tensor over all runs and steps (0 without data).
    double largestMagnitude() const;
    // The step nearest to `x` over all runs, or -1 without data.
    int nearestStep(double x) const;

    // The note above the plot: largest |x| and its fp16 band, where NaN/Inf first appeared,
    // limits that are off scale. Empty without data.
    QString limitNote() const;
    // The first sentence of the note for a largest magnitude `absMax` > 0.
    static QString magnitudeNote(double absMax);

private:
    QStringList m_labels;
    std::vector<Run> m_runs;
    int m_stepCount = 0;
    bool m_log = false;
    Tensor m_tensor = Tensor::Latent;
    bool m_visible[SeriesCount] = {true, true, true, true, true, true, true};
};
