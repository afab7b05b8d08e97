#include "compare_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "ctl_plot_style.h"
#include "image_view.h"
#include "preview_strip.h"
#include "step_plot.h"
#include "view_format.h"

namespace {

// Both plots get the same left and right margins, so their x axes line up pixel for pixel.
void fixHorizontalMargins(QCustomPlot* plot) {
    plot->axisRect()->setAutoMargins(QCP::msTop | QCP::msBottom);
    plot->axisRect()->setMargins(QMargins(84, 0, 76, 0));
}

// The divergence of the runs per step: a log-scale curve (graph 0), crosses along the top where
// the value is not finite (graph 1).
QCustomPlot* newDivergencePlot(QWidget* parent) {
    auto* plot = new QCustomPlot(parent);
    fixHorizontalMargins(plot);
    plot->addGraph();
    plot->graph(0)->setPen(QPen(QColor(60, 60, 60), 2));
    plot->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    plot->addGraph();
    plot->graph(1)->setLineStyle(QCPGraph::lsNone);
    plot->graph(1)->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCross, QPen(QColor(200, 0, 0), 2), Qt::NoBrush, 9));
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot->yAxis->setNumberFormat("eb");
    plot->yAxis->setNumberPrecision(0);
    plot->yAxis2->setVisible(true);  // empty, so the axis rect matches the step plot's
    plot->yAxis2->setTickLabels(false);
    plot->yAxis2->setTicks(false);
    plot->xAxis->setLabel(CompareView::tr("step"));
    ctl::setWholeNumberTicks(plot->xAxis);
    plot->setMinimumHeight(140);
    // The measure and the pair are in the note above the plot; the axis keeps a short word.
    plot->yAxis->setLabel(CompareView::tr("divergence"));
    ctl::followPalette(plot);  // its grey curve turns light on a dark palette
    return plot;
}

}  // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent),
      m_plot(new StepPlot(this)),
      m_divergence(newDivergencePlot(this)),
      m_divergenceNote(new QLabel(this)),
      m_stripBox(new QWidget),
      m_stripGrid(new QGridLayout(m_stripBox)),
      m_imageRow(new QHBoxLayout),
      m_pairABox(new QComboBox(this)),
      m_pairBBox(new QComboBox(this)),
      m_gainBox(new QComboBox(this)),
      m_diffView(new ImageView(this)) {
    m_divergenceWhat = tr("latent divergence");
    fixHorizontalMargins(m_plot->plot());

    // The measure and the pair in a line that wraps above the divergence plot.
    m_divergenceNote->setWordWrap(true);
    m_divergenceNote->setTextFormat(Qt::PlainText);
    connect(m_plot->plot()->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& r) {
                m_divergence->xAxis->setRange(r);
                m_divergence->replot(QCustomPlot::rpQueuedReplot);
            });

    // Preview strips: one shared legend, then a row per run.
    m_stripGrid->setContentsMargins(0, 0, 0, 0);
    m_stripGrid->setHorizontalSpacing(6);
    m_stripGrid->setVerticalSpacing(2);
    auto* legend = new QLabel(PreviewStrip::legendHtml(), m_stripBox);
    legend->setTextFormat(Qt::RichText);
    legend->setWordWrap(true);
    m_stripGrid->addWidget(legend, 0, 0, 1, 2);
    m_stripScroll = new QScrollArea(this);
    m_stripScroll->setWidget(m_stripBox);
    m_stripScroll->setWidgetResizable(true);
    m_stripScroll->setFrameShape(QFrame::NoFrame);
    m_stripScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    // Final images, then the difference of the chosen pair.
    for (QComboBox* box : {m_pairABox, m_pairBBox})
        connect(box, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
            setDifferencePair(m_pairABox->currentIndex(), m_pairBBox->currentIndex());
        });
    m_gainBox->addItem(tr("auto"), 0.0);
    for (double g : {1.0, 4.0, 16.0, 64.0}) m_gainBox->addItem(tr("x%1").arg(g), g);
    connect(m_gainBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int i) { setDifferenceGain(m_gainBox->itemData(i).toDouble()); });
    auto* diffBar = new QGridLayout;
    diffBar->setContentsMargins(0, 0, 0, 0);
    diffBar->addWidget(new QLabel(tr("A:"), this), 0, 0);
    diffBar->addWidget(m_pairABox, 0, 1, 1, 3);
    diffBar->addWidget(new QLabel(tr("B:"), this), 1, 0);
    diffBar->addWidget(m_pairBBox, 1, 1);
    diffBar->addWidget(new QLabel(tr("gain"), this), 1, 2);
    diffBar->addWidget(m_gainBox, 1, 3);
    diffBar->setColumnStretch(1, 1);
    auto* diffPanel = new QWidget(this);
    auto* diffLayout = new QVBoxLayout(diffPanel);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    diffLayout->addLayout(diffBar);
    diffLayout->addWidget(m_diffView, 1);
    m_diffView->setTitle(tr("Difference"));
    m_diffView->setPlaceholder(tr("The difference appears when both runs have a final image."));
    auto* images = new QWidget(this);
    auto* imagesLayout = new QHBoxLayout(images);
    imagesLayout->setContentsMargins(0, 0, 0, 0);
    imagesLayout->addLayout(m_imageRow, 4);
    imagesLayout->addWidget(diffPanel, 1);
    m_imagesLayout = imagesLayout;

    // The curves and the final images side by side on top: what a comparison is about fits in
    // one screen, with the divergence and the aligned strips below.
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(m_plot);
    top->addWidget(images);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    auto* divergenceBox = new QWidget(this);
    auto* divergenceLayout = new QVBoxLayout(divergenceBox);
    divergenceLayout->setContentsMargins(0, 0, 0, 0);
    divergenceLayout->setSpacing(0);
    divergenceLayout->addWidget(m_divergenceNote);
    divergenceLayout->addWidget(m_divergence, 1);
    split->addWidget(divergenceBox);
    split->addWidget(m_stripScroll);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 2);
    // The step plot's height comes from its layout (controls, wrapped note, plot, values).
    images->setMinimumHeight(200);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    setRuns({tr("Run A"), tr("Run B")});
}

bool CompareView::setRuns(const QStringList& labels, const QStringList& plans) {
    if (labels.size() < 2 || labels.size() > 4) return false;
    m_labels = labels;
    m_plans = plans;
    rebuildRuns();
    return true;
}

void CompareView::rebuildRuns() {
    for (PreviewStrip* s : m_strips) delete s;
    for (QLabel* l : m_stripLabels) delete l;
    for (ImageView* v : m_images) delete v;
    m_strips.clear();
    m_stripLabels.clear();
    m_images.clear();
    m_finals.assign(size_t(m_labels.size()), std::nullopt);

    for (int r = 0; r < runCount(); ++r) {
        auto* label = new QLabel(viewRunTitleHtml(viewRunColor(r), m_labels[r]), m_stripBox);
        if (r < m_plans.size()) label->setToolTip(m_plans[r]);  // the whole plan behind a title
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setFixedWidth(140);
        auto* strip = new PreviewStrip(m_stripBox);
        strip->setLegendVisible(false);
        strip->setThumbnailSize(runCount() > 3 ? 52 : 64);
        // One scroll bar, under the last strip, moves them all (see syncScroll).
        strip->setScrollBarVisible(r == runCount() - 1);
        strip->setStepCount(m_steps);
        connect(strip, &PreviewStrip::stepClicked, this, [this, r, strip](int step) {
            strip->setSelectedStep(step);
            emit previewClicked(r, step);
        });
        connect(strip->horizontalScrollBar(), &QScrollBar::valueChanged, this,
                &CompareView::syncScroll);
        m_stripGrid->addWidget(label, r + 1, 0, Qt::AlignTop);
        m_stripGrid->addWidget(strip, r + 1, 1);
        m_stripLabels.push_back(label);
        m_strips.push_back(strip);

        auto* image = new ImageView(this);
        QString title = m_labels[r];
        if (r < m_plans.size() && !m_plans[r].isEmpty()) title += ": " + m_plans[r];
        image->setTitle(title);
        image->setPlaceholder(tr("Waiting for the final image of this run."));
        m_imageRow->addWidget(image, 1);
        m_images.push_back(image);
    }
    m_stripGrid->setRowStretch(runCount() + 1, 1);
    // Every strip stays visible: the area is never squeezed below its content.
    m_stripScroll->setMinimumHeight(m_stripBox->sizeHint().height());
    // The image row: the runs' images and the difference get equal widths.
    for (int r = 0; r < runCount(); ++r) m_imageRow->setStretch(r, 1);
    m_imagesLayout->setStretch(0, runCount());
    m_imagesLayout->setStretch(1, 1);

    {
        const QSignalBlocker a(m_pairABox), b(m_pairBBox);
        m_pairABox->clear();
        m_pairBBox->clear();
        m_pairABox->addItems(m_labels);
        m_pairBBox->addItems(m_labels);
        m_pairA = 0;
        m_pairB = 1;
        m_pairABox->setCurrentIndex(0);
        m_pairBBox->setCurrentIndex(1);
    }
    m_plot->setRunLabels(m_labels);
    m_plot->clear();
    m_divergenceValues.clear();
    replotDivergence();
    updateDifference();
}

void CompareView::setStepCount(int steps) {
    m_steps = std::max(0, steps);
    m_plot->setStepCount(m_steps);
    for (PreviewStrip* s : m_strips) s->setStepCount(m_steps);
    replotDivergence();
}

void CompareView::clear() {
    m_plot->clear();
    for (PreviewStrip* s : m_strips) s->clear();
    for (ImageView* v : m_images) v->clear();
    m_finals.assign(size_t(m_labels.size()), std::nullopt);
    m_divergenceValues.clear();
    replotDivergence();
    updateDifference();
}

bool CompareView::addStep(int run, const hs::StepRecord& step) {
    if (run < 0 || run >= runCount()) return false;
    m_plot->addStep(run, step);
    return true;
}

bool CompareView::addPreview(int run, const hs::PreviewImage& preview) {
    if (run < 0 || run >= runCount() || preview.step < 0) return false;
    return m_strips[size_t(run)]->addPreview(preview);
}

bool CompareView::setFinal(int run, const hs::PreviewImage& image, const QString& verdict,
                           const QString& explanation, const hs::TensorStats& imageStats) {
    if (run < 0 || run >= runCount()) return false;
    m_images[size_t(run)]->setResult(image, verdict, explanation, imageStats);
    m_finals[size_t(run)] = image;
    if (run == m_pairA || run == m_pairB) updateDifference();
    return true;
}

bool CompareView::setFinal(int run, const hs::RunRecord& record) {
    if (run < 0 || run >= runCount()) return false;
    m_images[size_t(run)]->setRun(record);
    m_finals[size_t(run)] = record.finalImage;
    if (run == m_pairA || run == m_pairB) updateDifference();
    return true;
}

void CompareView::setDivergence(const QVector<double>& perStep, const QString& what) {
    m_divergenceValues = perStep;
    if (!what.isEmpty()) m_divergenceWhat = what;
    replotDivergence();
}

void CompareView::replotDivergence() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVector<double> keys, values, badKeys;
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (int i = 0; i < m_divergenceValues.size(); ++i) {
        const double v = m_divergenceValues[i];
        keys << i;
        if (!std::isfinite(v)) {
            badKeys << i;
            values << nan;
        } else if (v <= 0) {
            values << nan;  // identical latents: no point on a log scale
        } else {
            values << v;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    if (hi <= 0) lo = 1e-6, hi = 1;
    const QCPRange range(lo / 3, hi * 6);
    m_divergence->graph(0)->setData(keys, values, true);
    const double top =
        std::exp(std::log(range.lower) + 0.92 * (std::log(range.upper) - std::log(range.lower)));
    m_divergence->graph(1)->setData(badKeys, QVector<double>(badKeys.size(), top), true);
    m_divergence->yAxis->setRange(range);
    const QString a = m_labels.value(m_pairA), b = m_labels.value(m_pairB);
    m_divergenceNote->setText(tr("Per step: %1, %2 vs %3 (a red x marks a step that is not finite)")
                                  .arg(m_divergenceWhat, a, b));
    m_divergence->xAxis->setLabel(tr("step"));
    m_divergence->xAxis->setRange(m_plot->plot()->xAxis->range());
    m_divergence->replot(QCustomPlot::rpQueuedReplot);
}

void CompareView::setDifferencePair(int a, int b) {
    if (a < 0 || b < 0 || a >= runCount() || b >= runCount()) return;
    const bool changed = a != m_pairA || b != m_pairB;
    m_pairA = a;
    m_pairB = b;
    {
        const QSignalBlocker ba(m_pairABox), bb(m_pairBBox);
        m_pairABox->setCurrentIndex(a);
        m_pairBBox->setCurrentIndex(b);
    }
    updateDifference();
    replotDivergence();
    if (changed) emit differencePairChanged(a, b);
}

void CompareView::setDifferenceGain(double gain) {
    m_gain = gain;
    updateDifference();
}

void CompareView::updateDifference() {
    const QString a = m_labels.value(m_pairA), b = m_labels.value(m_pairB);
    m_diffView->setTitle(tr("Difference |%1 - %2|").arg(a, b));
    auto finalOf = [this](int run) -> const hs::PreviewImage* {
        if (run < 0 || run >= int(m_finals.size()) || !m_finals[size_t(run)]) return nullptr;
        return &*m_finals[size_t(run)];
    };
    const hs::PreviewImage* fa = finalOf(m_pairA);
    const hs::PreviewImage* fb = finalOf(m_pairB);
    if (!fa || !fb) {
        m_diff = ViewDifference();
        m_diffView->clear();
        return;
    }
    m_diff = viewDifference(*fa, *fb, m_gain);
    if (!m_diff.error.isEmpty()) {
        m_diffView->setPicture(hs::PreviewImage(), m_diff.error);
        return;
    }
    QString caption = m_pairA == m_pairB ? tr("the same run twice")
                                         : tr("max %1/255, mean %2/255, shown x%3")
                                               .arg(m_diff.maxDiff)
                                               .arg(m_diff.meanDiff, 0, 'f', 1)
                                               .arg(m_diff.gain, 0, 'f', 1);
    if (m_diff.nonFinite > 0)
        caption +=
            tr("; %1 pixels NaN/Inf in either run (magenta/cyan)").arg(viewCount(m_diff.nonFinite));
    m_diffView->setPicture(m_diff.image, caption);
}

void CompareView::syncScroll(int value) {
    if (m_syncing) return;
    m_syncing = true;
    for (PreviewStrip* s : m_strips) s->horizontalScrollBar()->setValue(value);
    m_syncing = false;
}

PreviewStrip* CompareView::previewStrip(int run) const {
    return run >= 0 && run < int(m_strips.size()) ? m_strips[size_t(run)] : nullptr;
}

ImageView* CompareView::imageView(int run) const {
    return run >= 0 && run < int(m_images.size()) ? m_images[size_t(run)] : nullptr;
}
