#pragma once
// 2 to 4 runs side by side (same prompt and seed, different precision plans): one StepPlot with
// every run overlaid, a per-step divergence curve between two runs' latents (log scale) on the
// same x range, one PreviewStrip per run aligned by step (their scroll bars move together), and
// the final image of each run with its verdict and plan, next to the difference image |A - B| of
// a chosen pair (amplified; non-finite pixels marked).
//
// The app computes the divergence (it has the latents) for differencePair() and calls
// setDivergence() again when differencePairChanged() fires.
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <optional>
#include <vector>

#include "records/run_types.h"
#include "view_difference.h"

class ImageView;
class PreviewStrip;
class QComboBox;
class QCustomPlot;
class QLabel;
class QScrollArea;
class QGridLayout;
class QHBoxLayout;
class StepPlot;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);

    // Starts a comparison of labels.size() runs (2 .. 4); plans[i], if given, is shown with the
    // final image of run i. Everything shown before is cleared. Returns false and changes
    // nothing for fewer than 2 or more than 4 labels.
    bool setRuns(const QStringList& labels, const QStringList& plans = QStringList());
    int runCount() const { return int(m_labels.size()); }
    QStringList runLabels() const { return m_labels; }
    // Step columns of the plot, the divergence curve and the strips (keeps them aligned).
    void setStepCount(int steps);
    void clear();  // keeps the runs

    // Ignored (false) for a run index out of range. addPreview() also ignores the final image
    // (step < 0): give that to setFinal().
    bool addStep(int run, const hs::StepRecord& step);
    bool addPreview(int run, const hs::PreviewImage& preview);
    bool setFinal(int run, const hs::PreviewImage& image, const QString& verdict,
                  const QString& explanation, const hs::TensorStats& imageStats = {});
    bool setFinal(int run, const hs::RunRecord& record);
    // Divergence per step (index = step) between the latents of differencePair(); `what` names
    // the measure for the axis (default "latent divergence"). Values <= 0 leave a gap (log
    // scale); non-finite values are drawn as red crosses along the top.
    void setDivergence(const QVector<double>& perStep, const QString& what = QString());

    void setDifferencePair(int a, int b);
    QPair<int, int> differencePair() const { return {m_pairA, m_pairB}; }
    // 0 or less: automatic (the largest difference becomes white, at most x64).
    void setDifferenceGain(double gain);
    const ViewDifference& difference() const { return m_diff; }

    StepPlot* stepPlot() const { return m_plot; }
    QCustomPlot* divergencePlot() const { return m_divergence; }
    PreviewStrip* previewStrip(int run) const;
    ImageView* imageView(int run) const;
    ImageView* differenceView() const { return m_diffView; }

signals:
    void previewClicked(int run, int step);
    void differencePairChanged(int a, int b);

private:
    void rebuildRuns();
    void updateDifference();
    void replotDivergence();
    void syncScroll(int value);

    StepPlot* m_plot;
    QCustomPlot* m_divergence;
    QLabel* m_divergenceNote;  // what the divergence measures, for which pair
    QWidget* m_stripBox;
    QGridLayout* m_stripGrid;
    QHBoxLayout* m_imageRow;
    QHBoxLayout* m_imagesLayout = nullptr;
    QScrollArea* m_stripScroll = nullptr;
    QComboBox* m_pairABox;
    QComboBox* m_pairBBox;
    QComboBox* m_gainBox;
    ImageView* m_diffView;
    std::vector<PreviewStrip*> m_strips;
    std::vector<QLabel*> m_stripLabels;
    std::vector<ImageView*> m_images;
    std::vector<std::optional<hs::PreviewImage>> m_finals;
    QStringList m_labels, m_plans;
    QVector<double> m_divergenceValues;
    QString m_divergenceWhat;
    ViewDifference m_diff;
    int m_steps = 0;
    int m_pairA = 0, m_pairB = 1;
    double m_gain = 0;
    bool m_syncing = false;
};
