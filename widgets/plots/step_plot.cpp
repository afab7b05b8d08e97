#include "step_plot.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ctl_plot_style.h"
#include "ctl_quiet.h"
#include "ctl_style.h"
#include "records/format_types.h"
#include "view_format.h"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double bf16Max() {
    return hs::limitsOf(hs::Format::BF16).maxFinite;
}

// Series colours when a single run is shown (several runs use the run colours instead).
QColor seriesColor(StepPlot::Series s) {
    switch (s) {
        case StepPlot::Min:
            return QColor(0, 114, 178);
        case StepPlot::Max:
            return QColor(213, 94, 0);
        case StepPlot::AbsMax:
            return QColor(25, 25, 25);
        case StepPlot::Mean:
            return QColor(0, 158, 115);
        case StepPlot::Std:
            return QColor(148, 103, 189);
        case StepPlot::NanCount:
            return viewNanColor();
        case StepPlot::InfCount:
            return QColor(0, 170, 200);  // cyan, darkened to show on white
        default:
            return Qt::gray;
    }
}

QPen seriesPen(StepPlot::Series s, const QColor& c) {
    switch (s) {
        case StepPlot::AbsMax:
            return QPen(c, 2.4, Qt::SolidLine);
        case StepPlot::Max:
            return QPen(c, 1.3, Qt::DashLine);
        case StepPlot::Min:
            return QPen(c, 1.6, Qt::DotLine);
        case StepPlot::Mean:
            return QPen(c, 1.3, Qt::DashDotLine);
        case StepPlot::Std:
            return QPen(c, 1.3, Qt::DashDotDotLine);
        default:
            return QPen(c, 1.2, Qt::SolidLine);
    }
}

}  // namespace

StepPlot::StepPlot(QWidget* parent)
    : QWidget(parent),
      m_plot(new QCustomPlot(this)),
      m_note(new QLabel(this)),
      m_values(new QLabel(this)),
      m_logBox(new QCheckBox(tr("Log scale (|x|)"), this)),
      m_tensorBox(new QComboBox(this)),
      m_timer(new QTimer(this)) {
    m_timer->setSingleShot(true);
    m_timer->setInterval(40);
    connect(m_timer, &QTimer::timeout, this, &StepPlot::flush);
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] { ++m_replots; });

    m_tensorBox->addItem(tr("Latent x (after the step)"));
    m_tensorBox->addItem(tr("Denoised estimate x0"));
    m_tensorBox->addItem(tr("Velocity v (model output)"));
    connect(m_tensorBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int i) { setTensor(Tensor(i)); });
    m_logBox->setToolTip(
        tr("Logarithmic scale of magnitudes: shows |max| and std; min, max and "
           "mean are signed and are hidden"));
    connect(m_logBox, &QCheckBox::toggled, this, &StepPlot::setLogScale);

    // Two rows (what is drawn; which curves), so a narrow plot never squeezes a control below
    // the width of its text.
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Tensor:"), this));
    bar->addWidget(m_tensorBox);
    bar->addWidget(m_logBox);
    bar->addStretch(1);
    auto* seriesBar = new QHBoxLayout;
    seriesBar->setContentsMargins(0, 0, 0, 0);
    seriesBar->setSpacing(0);
    const QString names[SeriesCount] = {tr("min"), tr("max"), tr("|max|"), tr("mean"),
                                        tr("std"), tr("NaN"), tr("Inf")};
    for (int s = 0; s < SeriesCount; ++s) {
        auto* b = new QToolButton(this);
        b->setText(names[s]);
        b->setCheckable(true);
        b->setChecked(true);
        b->setAutoRaise(true);
        b->setToolTip(tr("Show or hide the %1 curve").arg(names[s]));
        connect(b, &QToolButton::toggled, this,
                [this, s](bool on) { setSeriesVisible(Series(s), on); });
        seriesBar->addWidget(b);
        m_seriesButtons[s] = b;
    }
    seriesBar->addStretch(1);

    m_note->setWordWrap(true);
    // A wrapped label's minimum is one line; the note takes its lines' height (see resizeEvent).
    m_note->setTextFormat(Qt::PlainText);
    m_values->setTextFormat(Qt::RichText);
    m_values->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Hovering must not move the layout: the readout's width never sets the column's (its long
    // lines wrap, the whole text is its tooltip), and its height is reserved for one line a run
    // plus the heading when the runs are set, never when the pointer moves.
    m_values->setWordWrap(true);
    m_values->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    reserveValueLines();
    m_values->setText(tr("Point at the plot to read the exact values of a step."));

    // Axes: steps are integers, counts are integers.
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->yAxis->setLabel(tr("value"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("count"));  // the legend names NaN and Inf counts
    ctl::setWholeNumberTicks(m_plot->xAxis);
    ctl::setWholeNumberTicks(m_plot->yAxis2);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);

    // Legend in its own row under the axis rect, so it never covers a curve.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(8);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->plotLayout()->addElement(1, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);

    auto makeLine = [this](const QColor& c) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->setPen(QPen(c, 1.5, Qt::DashLine));
        line->setAntialiased(false);  // a crisp horizontal line, exactly the limit's colour
        line->setSelectable(false);
        return line;
    };
    auto makeLabel = [this](const QColor& c, const QString& text, Qt::Alignment valign) {
        auto* label = new QCPItemText(m_plot);
        label->setText(text);
        label->setColor(c);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setTypeY(QCPItemPosition::ptPlotCoords);
        label->setPositionAlignment(Qt::AlignRight | valign);
        label->setSelectable(false);
        return label;
    };
    const QColor fp16Color(200, 0, 0), bf16Color(120, 60, 0);
    const QString fp16Text = tr("fp16 limit %1").arg(viewNumber(hs::kFp16Max));
    const QString bf16Text = tr("bf16 limit %1").arg(viewNumber(bf16Max(), 3));
    for (int i = 0; i < 2; ++i) {
        m_fp16Lines[i] = makeLine(fp16Color);
        m_bf16Lines[i] = makeLine(bf16Color);
        const Qt::Alignment v = i == 0 ? Qt::AlignBottom : Qt::AlignTop;
        m_fp16Labels[i] = makeLabel(fp16Color, (i == 0 ? "+" : "-") + fp16Text, v);
        m_bf16Labels[i] = makeLabel(bf16Color, (i == 0 ? "+" : "-") + bf16Text, v);
        m_fp16Labels[i]->setLayer("axes");  // above the curves: a limit label stays readable
        m_bf16Labels[i]->setLayer("axes");
        m_fp16Labels[i]->setBrush(QColor(255, 255, 255, 200));
        m_bf16Labels[i]->setBrush(QColor(255, 255, 255, 200));
    }

    // Hover cursor on the overlay layer, buffered alone so moving it never replots the curves.
    m_plot->layer("overlay")->setMode(QCPLayer::lmBuffered);
    m_cursor = new QCPItemStraightLine(m_plot);
    m_cursor->setLayer("overlay");
    m_cursor->setPen(QPen(QColor(90, 90, 90), 1, Qt::SolidLine));
    m_cursor->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_cursor->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_cursor->setVisible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addLayout(seriesBar);
    layout->addWidget(m_note);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_values);
    // Room for the axis labels and two legend rows; the width follows the controls' rows (the
    // legend's columns follow the width, see fitLegend, so its hint must not set a minimum).
    m_plot->setMinimumSize(240, 170);

    setRunLabels({tr("Run 1")});
    ctl::followPalette(m_plot);  // axes, grid and curves from the palette, light or dark
    markDirty();
}

void StepPlot::setRunLabels(const QStringList& labels) {
    const bool sameCount = labels.size() == m_data.runLabels().size();
    m_data.setRunLabels(labels);
    if (sameCount) {
        rebuildLegend();
    } else {
        rebuildGraphs();
        reserveValueLines();
    }
    markDirty();
}

void StepPlot::reserveValueLines() {
    const QFontMetrics fm = m_values->fontMetrics();
    const int lines = 1 + std::max<qsizetype>(1, m_data.runLabels().size());
    m_values->setFixedHeight(fm.lineSpacing() * lines + 2);
}

void StepPlot::setStepCount(int steps) {
    m_data.setStepCount(steps);
    markDirty();
}

void StepPlot::addStep(int run, const hs::StepRecord& step) {
    if (run < 0) return;
    if (run >= runCount()) {
        QStringList labels = m_data.runLabels();
        while (labels.size() <= run) labels << tr("Run %1").arg(labels.size() + 1);
        setRunLabels(labels);
    }
    m_data.addStep(run, step);
    markDirty();
}

void StepPlot::clear() {
    m_data.clear();
    setHover(-1);
    markDirty();
}

void StepPlot::setLogScale(bool on) {
    if (on == m_data.logScale()) return;
    m_data.setLogScale(on);
    ctl::setCheckedQuietly(m_logBox, on);
    styleGraphs();
    rebuildLegend();
    updateButtons();
    markDirty();
}

void StepPlot::setTensor(Tensor t) {
    m_data.setTensor(t);
    ctl::setIndexQuietly(m_tensorBox, int(t));
    if (m_hoverStep >= 0) setHover(m_hoverStep);
    markDirty();
}

void StepPlot::setSeriesVisible(Series s, bool visible) {
    if (s < 0 || s >= SeriesCount) return;
    m_data.setSeriesVisible(s, visible);
    ctl::setCheckedQuietly(m_seriesButtons[s], visible);
    styleGraphs();
    rebuildLegend();
    markDirty();
}

QCPGraph* StepPlot::graph(int run, Series s) const {
    if (run < 0 || run >= int(m_graphs.size()) || s < 0 || s >= SeriesCount) return nullptr;
    return m_graphs[size_t(run)][size_t(s)];
}

double StepPlot::valueLower() const {
    return m_plot->yAxis->range().lower;
}
double StepPlot::valueUpper() const {
    return m_plot->yAxis->range().upper;
}

QString StepPlot::limitNote() const {
    return m_limitNote;
}

void StepPlot::markDirty() {
    m_dirty = true;
    if (!m_timer->isActive()) m_timer->start();
}

void StepPlot::flush() {
    m_timer->stop();
    if (!m_dirty) return;
    m_dirty = false;
    fillData();
    updateRanges();
    updateLimitItems();
    fitLegend();
    // A plot in a hidden dock or tab keeps its data current but renders when it is shown.
    if (isVisible()) {
        m_plot->replot();
    } else {
        m_replotOnShow = true;
    }
}

void StepPlot::fitLegend() {
    QCPLegend* legend = m_plot->legend;
    QVector<int> widths;  // each item's width with its whole text
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i))
            widths << item->minimumOuterSizeHint().width();
    if (widths.isEmpty()) return;
    const int room = m_plot->width() - legend->margins().left() - legend->margins().right();
    // The most columns whose widest items fit side by side (items fill rows, left to right).
    int columns = int(widths.size());
    for (; columns > 1; --columns) {
        int total = legend->columnSpacing() * (columns - 1);
        for (int c = 0; c < columns; ++c) {
            int w = 0;
            for (int i = c; i < widths.size(); i += columns) w = std::max(w, widths[i]);
            total += w;
        }
        if (total <= room) break;
    }
    if (legend->wrap() != columns || legend->columnCount() > columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-flows the items
    }
    // The legend's rows come out of the plot's height: keep ~120 px for the axis rect and its
    // tick and axis labels under them.
    m_plot->setMinimumHeight(std::max(170, legend->minimumOuterSizeHint().height() + 120));
}

void StepPlot::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitNote();
}

void StepPlot::fitNote() {
    // The layout's minimum counts a wrapped label as one line: the note's height at this width
    // goes into its minimum, so a short plot scrolls or grows instead of overlapping the note.
    const int h = m_note->text().isEmpty() ? 0 : m_note->heightForWidth(width());
    if (m_note->minimumHeight() != h) m_note->setMinimumHeight(h);
}

void StepPlot::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_replotOnShow) {
        m_replotOnShow = false;
        m_plot->replot();
    }
}

void StepPlot::rebuildGraphs() {
    m_plot->clearGraphs();
    m_graphs.assign(size_t(m_data.runCount()), {});
    m_styleKey.clear();
    for (size_t r = 0; r < m_graphs.size(); ++r) {
        for (int s = 0; s < SeriesCount; ++s) {
            QCPAxis* valueAxis = s >= NanCount ? m_plot->yAxis2 : m_plot->yAxis;
            m_graphs[r].push_back(m_plot->addGraph(m_plot->xAxis, valueAxis));
        }
    }
    if (m_data.runCount() > 1) {
        // Legend-only graphs (no data) that explain the line styles in grey.
        for (int s = 0; s < SeriesCount; ++s)
            m_styleKey.push_back(m_plot->addGraph(m_plot->xAxis, m_plot->yAxis));
    }
    styleGraphs();
    rebuildLegend();
}

void StepPlot::styleGraphs() {
    const bool several = m_data.runCount() > 1;
    auto style = [&](QCPGraph* g, Series s, const QColor& c) {
        g->setPen(seriesPen(s, c));
        if (s == NanCount || s == InfCount) {
            g->setLineStyle(QCPGraph::lsStepCenter);
            g->setScatterStyle(QCPScatterStyle(
                s == NanCount ? QCPScatterStyle::ssCross : QCPScatterStyle::ssTriangle, c, 7));
        }
        g->setSelectable(QCP::stNone);
    };
    for (size_t r = 0; r < m_graphs.size(); ++r) {
        for (int s = 0; s < SeriesCount; ++s) {
            const QColor c = several ? viewRunColor(int(r)) : seriesColor(Series(s));
            QCPGraph* g = m_graphs[r][size_t(s)];
            style(g, Series(s), c);
            g->setVisible(m_data.seriesShown(Series(s)));
        }
    }
    for (size_t s = 0; s < m_styleKey.size(); ++s)
        style(m_styleKey[s], Series(s), QColor(110, 110, 110));
}

void StepPlot::rebuildLegend() {
    const QString names[SeriesCount] = {tr("min"), tr("max"),       tr("|max|"),    tr("mean"),
                                        tr("std"), tr("NaN count"), tr("Inf count")};
    m_plot->legend->clearItems();
    const bool several = m_data.runCount() > 1;
    for (size_t r = 0; r < m_graphs.size(); ++r) {
        for (int s = 0; s < SeriesCount; ++s) {
            QCPGraph* g = m_graphs[r][size_t(s)];
            g->setName(several ? m_data.runLabels()[int(r)] : names[s]);
            // Several runs: one entry per run (its colour) plus the grey style key below.
            const bool listed = several ? s == AbsMax : g->visible();
            if (listed) g->addToLegend();
        }
    }
    for (size_t s = 0; s < m_styleKey.size(); ++s) {
        QCPGraph* g = m_styleKey[s];
        g->setName(names[s]);
        if (m_data.seriesShown(Series(s))) g->addToLegend();
    }
}

void StepPlot::fillData() {
    QVector<double> keys, values;
    for (size_t r = 0; r < m_graphs.size() && int(r) < m_data.runCount(); ++r) {
        for (int s = 0; s < SeriesCount; ++s) {
            m_data.curve(int(r), Series(s), &keys, &values);
            m_graphs[r][size_t(s)]->setData(keys, values, true);
        }
    }
}

void StepPlot::updateRanges() {
    const StepPlotRange x = m_data.stepRange();
    m_plot->xAxis->setRange(x.lower, x.upper);
    if (m_data.logScale()) {
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        m_plot->yAxis->setNumberFormat("eb");
        m_plot->yAxis->setNumberPrecision(0);
    } else {
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_plot->yAxis->setNumberFormat("gb");
        m_plot->yAxis->setNumberPrecision(4);
    }
    const StepPlotRange y = m_data.valueRange();
    m_plot->yAxis->setRange(y.lower, y.upper);
    const StepPlotRange counts = m_data.countRange();
    m_plot->yAxis2->setRange(counts.lower, counts.upper);
}

void StepPlot::updateLimitItems() {
    const QCPRange axis = m_plot->yAxis->range();
    const StepPlotRange y{axis.lower, axis.upper};
    auto place = [&](QCPItemStraightLine* line, QCPItemText* label, double v) {
        const bool inRange = m_data.limitShown(v, y);
        line->setVisible(inRange);
        label->setVisible(inRange);
        if (!inRange) return;
        line->point1->setCoords(0, v);
        line->point2->setCoords(1, v);
        label->position->setCoords(0.995, v);
    };
    for (int i = 0; i < 2; ++i) {
        const double sign = i == 0 ? 1 : -1;
        place(m_fp16Lines[i], m_fp16Labels[i], sign * hs::kFp16Max);
        place(m_bf16Lines[i], m_bf16Labels[i], sign * bf16Max());
    }
    // +limit and -limit close together (a tall range): one label says it for both.
    const double gap = std::fabs(m_plot->yAxis->coordToPixel(hs::kFp16Max) -
                                 m_plot->yAxis->coordToPixel(-hs::kFp16Max));
    if (m_fp16Labels[0]->visible() && gap < 3 * fontMetrics().height()) {
        m_fp16Labels[0]->setText(tr("fp16 limits +/-%1").arg(viewNumber(hs::kFp16Max)));
        m_fp16Labels[1]->setVisible(false);
    } else {
        m_fp16Labels[0]->setText(tr("+fp16 limit %1").arg(viewNumber(hs::kFp16Max)));
    }

    m_limitNote = m_data.limitNote();
    ctl::setShownText(m_note, m_limitNote);
    fitNote();
}

void StepPlot::updateButtons() {
    for (int s = 0; s < SeriesCount; ++s) {
        const bool blocked = m_data.logScale() && StepPlotData::isSigned(Series(s));
        m_seriesButtons[s]->setEnabled(!blocked);
        m_seriesButtons[s]->setToolTip(
            blocked ? tr("Signed values cannot be drawn on a log scale")
                    : tr("Show or hide the %1 curve").arg(m_seriesButtons[s]->text()));
    }
}

int StepPlot::showValuesAt(double x) {
    const int step = m_data.nearestStep(x);
    setHover(step);
    return step;
}

void StepPlot::setHover(int step) {
    m_hoverStep = step;
    if (step < 0) {
        m_hoverText.clear();
        m_values->setToolTip(QString());
        m_values->setText(tr("Point at the plot to read the exact values of a step."));
        if (m_cursor->visible()) {
            m_cursor->setVisible(false);
            m_cursor->layer()->replot();
        }
        return;
    }
    QStringList plain, html;
    double sigma = kNaN;
    for (int r = 0; r < m_data.runCount(); ++r) {
        const StepPlotData::Run& run = m_data.run(r);
        auto it = run.find(step);
        const QString label = m_data.runLabels().value(r);
        if (it == run.end()) {
            plain << tr("%1: no data").arg(label);
            html << viewColorSquareHtml(viewRunColor(r)) + " " + label.toHtmlEscaped() + ": " +
                        tr("no data");
            continue;
        }
        sigma = it->second.sigma;
        const hs::TensorStats& st = m_data.statsOf(it->second);
        const QString line =
            st.finite == 0 && st.count > 0
                ? tr("no finite value  NaN %1  Inf %2")
                      .arg(viewCount(st.nan), viewCount(st.posInf + st.negInf))
                : tr("min %1  max %2  |max| %3  mean %4  std %5  NaN %6  Inf %7")
                      .arg(viewNumber(st.min, 5), viewNumber(st.max, 5), viewNumber(st.absMax, 5),
                           viewNumber(st.mean, 5), viewNumber(st.std, 5), viewCount(st.nan),
                           viewCount(st.posInf + st.negInf));
        plain << label + ": " + line;
        const QColor c = m_data.runCount() > 1 ? viewRunColor(r) : seriesColor(AbsMax);
        QString h = viewRunTitleHtml(c, label) + ": " + line.toHtmlEscaped();
        if (st.nonFinite() > 0) h = "<span style='color:#b00000'>" + h + "</span>";
        html << h;
    }
    const QString head = tr("Step %1 (sigma %2)").arg(step).arg(viewNumber(sigma, 4));
    m_hoverText = head + "\n" + plain.join("\n");
    m_values->setToolTip(m_hoverText);
    m_values->setText("<b>" + head.toHtmlEscaped() + "</b><br>" + html.join("<br>"));
    m_cursor->point1->setCoords(step, 0);
    m_cursor->point2->setCoords(step, 1);
    m_cursor->setVisible(true);
    m_cursor->layer()->replot();
}

bool StepPlot::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_plot) {
        if (event->type() == QEvent::Resize) {
            fitLegend();  // the plot replots itself after a resize
        } else if (event->type() == QEvent::MouseMove) {
            const auto* me = static_cast<QMouseEvent*>(event);
            const int before = m_hoverStep;
            const int step = showValuesAt(m_plot->xAxis->pixelToCoord(me->position().x()));
            if (step != before) emit stepHovered(step);
        } else if (event->type() == QEvent::Leave) {
            if (m_hoverStep >= 0) {
                setHover(-1);
                emit stepHovered(-1);
            }
        } else if (event->type() == QEvent::MouseButtonPress) {
            const auto* me = static_cast<QMouseEvent*>(event);
            const int step = m_data.nearestStep(m_plot->xAxis->pixelToCoord(me->position().x()));
            if (step >= 0 && me->button() == Qt::LeftButton) emit stepClicked(step);
        }
    }
    return QWidget::eventFilter(watched, event);
}
