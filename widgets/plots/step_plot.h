#pragma once
// Per-step statistics of one run or several overlaid runs (Compare): min, max, |max|, mean and
// std of the latent (or the denoised estimate / the velocity) on the left axis, NaN and Inf
// counts on the right axis, the fp16 and bf16 limits as labelled lines.
//
// Feeding: addStep() only stores the values and marks the plot dirty; a 40 ms single-shot timer
// rebuilds the curves and replots once, so a burst of steps costs one replot, not one each.
//
// Colours: with one run every series has its own colour; with several runs each run has its
// colour (viewRunColor) and the series are told apart by line style (|max| solid and thick,
// max dashed, min dotted, mean dash-dot, std dash-dot-dot, NaN crosses, Inf triangles).
//
// Log scale shows magnitudes: |max| and std (both >= 0 by construction) are drawn; min, max and
// mean are signed, so they are hidden on the log scale (the hover label still lists them);
// zero values leave a gap in the curve. On the log scale the fp16 limit is always in range; the
// bf16 limit (3.39e38) joins the range only when the data come within 6 decades of it, otherwise
// the note above the plot says how far above the data it is.
//
// The steps, the axis ranges and the note are kept and computed by StepPlotData
// (step_plot_data.h); this class draws them and handles the pointer.
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "records/run_types.h"
#include "step_plot_data.h"

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPRange;
class QCustomPlot;
class QCheckBox;
class QComboBox;
class QLabel;
class QMouseEvent;
class QResizeEvent;
class QShowEvent;
class QTimer;
class QToolButton;

class StepPlot : public QWidget {
    Q_OBJECT
public:
    // The data class's enums, so StepPlot::AbsMax and StepPlot::Tensor::Latent read as before.
    using Series = StepPlotData::Series;
    using Tensor = StepPlotData::Tensor;
    static constexpr Series Min = StepPlotData::Min;
    static constexpr Series Max = StepPlotData::Max;
    static constexpr Series AbsMax = StepPlotData::AbsMax;
    static constexpr Series Mean = StepPlotData::Mean;
    static constexpr Series Std = StepPlotData::Std;
    static constexpr Series NanCount = StepPlotData::NanCount;
    static constexpr Series InfCount = StepPlotData::InfCount;
    static constexpr int SeriesCount = StepPlotData::SeriesCount;

    explicit StepPlot(QWidget* parent = nullptr);

    // One run per label, in order. Steps of runs that remain are kept; extra runs are dropped.
    void setRunLabels(const QStringList& labels);
    QStringList runLabels() const { return m_data.runLabels(); }
    int runCount() const { return m_data.runCount(); }
    // Fixes the x range to steps 0 .. steps-1 (so runs and previews line up); 0 fits the data.
    void setStepCount(int steps);
    int stepCount() const { return m_data.stepCount(); }

    // Stores one step of `run` (a step that is already there is replaced). A run index past the
    // labels adds runs named "Run N". Cheap: no replot happens here.
    void addStep(int run, const hs::StepRecord& step);
    // Drops every step, keeps the runs and their labels.
    void clear();

    void setLogScale(bool on);
    bool logScale() const { return m_data.logScale(); }
    void setTensor(Tensor t);
    Tensor tensor() const { return m_data.tensor(); }
    void setSeriesVisible(Series s, bool visible);
    bool seriesVisible(Series s) const { return m_data.seriesVisible(s); }

    // Puts the hover cursor on the step nearest to plot coordinate `x` and fills the value
    // label with that step's exact values; returns the step, or -1 when there is no data.
    int showValuesAt(double x);
    QString hoverText() const { return m_hoverText; }
    // The note about limits that are off scale or close, as shown above the plot.
    QString limitNote() const;
    const StepPlotData& data() const { return m_data; }

    // Rebuilds and replots now if something changed (the timer does this by itself).
    void flush();
    // Full replots done so far (QCustomPlot::afterReplot), for tests and profiling.
    int replotCount() const { return m_replots; }
    bool replotPending() const { return m_dirty; }

    QCustomPlot* plot() const { return m_plot; }
    // nullptr when the run or the series does not exist.
    QCPGraph* graph(int run, Series s) const;
    double valueLower() const;
    double valueUpper() const;

signals:
    void stepHovered(int step);  // -1 when the pointer leaves the plot
    void stepClicked(int step);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void markDirty();
    void rebuildGraphs();
    void styleGraphs();
    void rebuildLegend();
    void fillData();
    void updateRanges();
    void updateLimitItems();
    void updateButtons();
    // Sets the legend's columns to as many as fit the plot's width with every item whole.
    void fitLegend();
    void reserveValueLines();  // the readout's fixed height: a heading and a line a run
    void fitNote();            // the note's minimum height: its wrapped lines at the current width
    void setHover(int step);

    QCustomPlot* m_plot;
    QLabel* m_note;
    QLabel* m_values;
    QCheckBox* m_logBox;
    QComboBox* m_tensorBox;
    QToolButton* m_seriesButtons[SeriesCount] = {};
    QTimer* m_timer;

    StepPlotData m_data;
    std::vector<std::vector<QCPGraph*>> m_graphs;  // [run][series]
    std::vector<QCPGraph*> m_styleKey;             // legend-only graphs (several runs)
    QCPItemStraightLine* m_fp16Lines[2] = {};      // +65504, -65504
    QCPItemStraightLine* m_bf16Lines[2] = {};
    QCPItemText* m_fp16Labels[2] = {};
    QCPItemText* m_bf16Labels[2] = {};
    QCPItemStraightLine* m_cursor = nullptr;

    bool m_dirty = false;
    bool m_replotOnShow = false;
    int m_replots = 0;
    int m_hoverStep = -1;
    QString m_hoverText;
    QString m_limitNote;
};
