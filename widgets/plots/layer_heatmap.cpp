#include "layer_heatmap.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTextDocument>
#include <QVBoxLayout>
#include <cmath>

#include "ctl_quiet.h"
#include "ctl_style.h"
#include "records/format_types.h"
#include "view_format.h"
#include "view_heatmap_grid.h"

namespace {

QString plainOf(const QString& html) {
    QTextDocument doc;
    doc.setHtml(html);
    return doc.toPlainText();
}

// The gradient bar of the legend with its scale underneath, painted once.
QPixmap legendBar(const QFont& font, const QColor& text, const QString& low, const QString& mid,
                  const QString& high) {
    const QFontMetrics fm(font);
    const int w = 260, barH = 10, h = barH + fm.height() + 3;
    QPixmap pm(w, h);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setFont(font);
    const int x0 = fm.horizontalAdvance(low) / 2, x1 = w - fm.horizontalAdvance(high) / 2 - 1;
    for (int x = x0; x <= x1; ++x) {
        const double v = kViewHeadroomFloor * (1.0 - double(x - x0) / (x1 - x0));
        p.setPen(viewHeadroomGradient(v));
        p.drawLine(x, 1, x, barH);
    }
    p.setPen(text);
    const QRect scale(0, barH + 2, w, fm.height());
    p.drawText(scale, Qt::AlignLeft, low);
    p.drawText(scale, Qt::AlignHCenter, mid);
    p.drawText(scale, Qt::AlignRight, high);
    return pm;
}

QString where(const ViewHeatmapData& d, int column) {
    if (column == 0) return LayerHeatmap::tr("text encoding");
    if (column == d.decodeColumn()) return LayerHeatmap::tr("VAE decode");
    return LayerHeatmap::tr("step %1").arg(d.stepOf(column));
}

}  // namespace

LayerHeatmap::LayerHeatmap(QWidget* parent)
    : QWidget(parent),
      m_grid(new ViewHeatmapGrid(&m_data, this)),
      m_filterBox(new QComboBox(this)),
      m_banner(new QLabel(this)),
      m_showFirst(new QPushButton(tr("Show"), this)),
      m_details(new QLabel(this)) {
    m_filterBox->addItem(tr("Layers and modules"));
    m_filterBox->addItem(tr("Modules only"));
    connect(m_filterBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int i) { setFilter(Filter(i)); });

    auto* bar = new QLabel(this);
    const auto paintBar = [this, bar] {  // again when the theme changes
        bar->setPixmap(legendBar(font(), bar->palette().color(QPalette::WindowText), tr("2^-24"),
                                 tr("2^-12"), tr("65504")));
    };
    paintBar();
    ctl::onPaletteChange(bar, paintBar);
    bar->setToolTip(tr("Blue: lots of headroom below fp16's 65504; red: at the limit"));
    auto* swatches = new QLabel(this);
    swatches->setTextFormat(Qt::RichText);
    swatches->setText(
        viewSwatchHtml(QColor(110, 0, 20)) + " " + tr("past 65504") + " &nbsp; " +
        viewSwatchHtml(viewNanColor()) + " " + tr("NaN") + " &nbsp; " +
        viewSwatchHtml(viewInfColor()) + " " + tr("Inf") + " &nbsp; " +
        viewSwatchHtml(QColor(232, 232, 232)) + " " + tr("no record") + " &nbsp; " +
        "<span style='background-color:black;color:white'>&nbsp;&#9633;&nbsp;</span> " +
        tr("first non-finite"));
    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(new QLabel(tr("Show:"), this));
    top->addWidget(m_filterBox);
    top->addSpacing(12);
    top->addWidget(new QLabel(tr("max|x| / fp16 limit:"), this));
    top->addWidget(bar);
    top->addStretch(1);
    swatches->setWordWrap(true);  // a second row of its own: the heatmap stays narrow

    m_banner->setTextFormat(Qt::RichText);
    m_banner->setWordWrap(true);
    m_banner->setText(tr("No NaN or Inf so far."));
    m_showFirst->setEnabled(false);
    m_showFirst->setToolTip(tr("Scroll to the first point whose output held NaN or Inf"));
    connect(m_showFirst, &QPushButton::clicked, this, [this] { showFirstNonFinite(); });
    auto* bannerRow = new QHBoxLayout;
    bannerRow->setContentsMargins(0, 0, 0, 0);
    bannerRow->addWidget(m_banner, 1);
    bannerRow->addWidget(m_showFirst);

    m_details->setTextFormat(Qt::RichText);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setMinimumWidth(180);
    m_details->setMargin(6);
    m_details->setText(tr("Click a cell to see the statistics of that probe point."));

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_grid);
    split->addWidget(m_details);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setCollapsible(0, false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    layout->addLayout(top);
    layout->addWidget(swatches);
    layout->addLayout(bannerRow);
    layout->addWidget(split, 1);

    connect(m_grid, &ViewHeatmapGrid::cellClicked, this, &LayerHeatmap::onGridClick);
    applyFilter();
}

void LayerHeatmap::addProbes(const std::vector<hs::ProbeRecord>& records) {
    const int columnsBefore = m_data.columnCount();
    m_data.add(records);
    if (m_data.rowCount() != m_rowsSeen) {
        applyFilter();  // new rows: the visible list and the label width change
    } else {
        m_grid->dataChanged();
    }
    if (m_first && (m_markRow < 0 || m_data.columnCount() != columnsBefore)) resolveMark();
    if (m_selRow >= 0) showDetails(m_selRow, m_selColumn);
}

void LayerHeatmap::setFirstNonFinite(const hs::FirstNonFinite& first) {
    m_first = first;
    const hs::ProbeRecord& at = first.at;
    const hs::TensorStats& s = at.stats;
    const QString name = QString::fromStdString(at.name).toHtmlEscaped();
    const QString stage = at.step >= 0 ? tr("step %1").arg(at.step)
                          : m_data.columnForUnsteppedName(QString::fromStdString(at.name)) == 0
                              ? tr("text encoding")
                              : tr("VAE decode");
    QString text =
        tr("<b style='color:#c00000'>First NaN/Inf:</b> <b>%1</b> (%2, %3 %4) at %5: "
           "NaN %6, +Inf %7, -Inf %8 of %9.")
            .arg(name, viewProbeLevelName(at.granularity),
                 QString::fromStdString(hs::formatName(at.format)),
                 viewExecutionName(at.execution), stage, viewCount(s.nan),
                 viewCount(s.posInf), viewCount(s.negInf), viewCount(s.count));
    if (first.input) {
        const hs::TensorStats& in = first.input->stats;
        text += " " + tr("The point before it, %1, had |max| %2%3.")
                          .arg(QString::fromStdString(first.input->name).toHtmlEscaped(),
                               viewNumber(in.absMax),
                               in.allFinite() ? QString() : tr(" and non-finite values"));
    }
    m_banner->setText(text);
    m_showFirst->setEnabled(true);
    resolveMark();
}

void LayerHeatmap::setStepCount(int steps) {
    m_data.setStepCount(steps);
    m_grid->dataChanged();
    if (m_first) resolveMark();
}

void LayerHeatmap::clear() {
    m_data.clear();
    m_first.reset();
    m_markRow = m_markColumn = m_selRow = m_selColumn = -1;
    m_rowsSeen = 0;
    m_banner->setText(tr("No NaN or Inf so far."));
    m_showFirst->setEnabled(false);
    m_details->setText(tr("Click a cell to see the statistics of that probe point."));
    m_grid->setSelected(-1, -1);
    m_grid->setMarked(-1, -1);
    applyFilter();
}

void LayerHeatmap::setFilter(Filter f) {
    m_filter = f;
    ctl::setIndexQuietly(m_filterBox, int(f));
    applyFilter();
}

void LayerHeatmap::applyFilter() {
    std::vector<int> rows;
    rows.reserve(size_t(m_data.rowCount()));
    for (int r = 0; r < m_data.rowCount(); ++r)
        if (m_filter == Filter::LayersAndModules ||
            m_data.row(r).granularity == hs::ProbeLevel::Module)
            rows.push_back(r);
    m_rowsSeen = m_data.rowCount();
    m_grid->setVisibleRows(std::move(rows));
    if (m_first) resolveMark();
}

void LayerHeatmap::resolveMark() {
    m_markRow = m_markColumn = -1;
    if (!m_first) return;
    const QString name = QString::fromStdString(m_first->at.name);
    // The point itself, or (an Op point, or a layer hidden by the filter) the closest shown
    // enclosing point: the longest shown name that is a dotted prefix of it.
    int best = m_data.rowOf(name);
    if (best < 0 || m_grid->displayRowOf(best) < 0) {
        best = -1;
        int bestLen = -1;
        for (int r : m_grid->visibleRows()) {
            const QString& n = m_data.row(r).name;
            if (n.size() > bestLen && name.startsWith(n + '.')) best = r, bestLen = int(n.size());
        }
    }
    if (best >= 0) {
        m_markRow = best;
        m_markColumn = m_first->at.step >= 0 ? m_data.columnOfStep(m_first->at.step)
                                             : m_data.columnForUnsteppedName(name);
    }
    m_grid->setMarked(m_markRow, m_markColumn);
}

bool LayerHeatmap::showFirstNonFinite() {
    if (m_markRow < 0) return false;
    m_grid->scrollToCell(m_grid->displayRowOf(m_markRow), m_markColumn);
    onGridClick(m_markRow, m_markColumn);
    return true;
}

bool LayerHeatmap::selectCell(const QString& probe, int column) {
    const int r = m_data.rowOf(probe);
    if (r < 0 || column < 0 || column >= m_data.columnCount()) return false;
    onGridClick(r, column);
    return true;
}

bool LayerHeatmap::selectLayer(const QString& probe, int step) {
    const int r = m_data.rowOf(probe);
    if (r < 0) return false;
    const int column = step >= 0 ? m_data.columnOfStep(step) : m_data.columnForUnsteppedName(probe);
    if (column < 0 || column >= m_data.columnCount()) return false;
    if (m_grid->displayRowOf(r) < 0) setFilter(Filter::LayersAndModules);
    m_grid->scrollToCell(m_grid->displayRowOf(r), column);
    onGridClick(r, column);
    return true;
}

void LayerHeatmap::onGridClick(int dataRow, int column) {
    m_selRow = dataRow;
    m_selColumn = column;
    m_grid->setSelected(dataRow, column);
    showDetails(dataRow, column);
    emit cellClicked(m_data.row(dataRow).name, m_data.stepOf(column));
}

void LayerHeatmap::showDetails(int dataRow, int column) {
    const auto& row = m_data.row(dataRow);
    const ViewHeatmapData::Cell* c = m_data.cell(dataRow, column);
    QString html = "<b>" + row.name.toHtmlEscaped() + "</b><br>" +
                   tr("%1 point, %2")
                       .arg(viewProbeLevelName(row.granularity),
                            where(m_data, column));
    if (!c || c->empty()) {
        m_details->setText(html + "<br><br>" + tr("No record for this step."));
        return;
    }
    const hs::TensorStats& s = c->stats;
    QStringList rows;
    auto add = [&](const QString& k, const QString& v, bool alarm = false) {
        rows << QStringLiteral("<tr><td>%1</td><td align='right'>%2</td></tr>")
                    .arg(k.toHtmlEscaped(),
                         alarm ? "<b style='color:#c00000'>" + v.toHtmlEscaped() + "</b>"
                               : v.toHtmlEscaped());
    };
    add(tr("format"), QString::fromStdString(hs::formatName(c->format)) + " " +
                          viewExecutionName(c->execution));
    if (c->calls > 1) add(tr("records merged"), QString::number(c->calls));
    add(tr("count"), viewCount(s.count));
    add(tr("min"), viewNumber(s.min, 6));
    add(tr("max"), viewNumber(s.max, 6));
    add(tr("|max|"), viewNumber(s.absMax, 6), s.absMax > hs::kFp16Max);
    const double h = viewHeadroomLog2(s);
    if (std::isfinite(h)) add(tr("log2(|max| / 65504)"), QString::number(h, 'f', 2), h > -1);
    add(tr("mean"), viewNumber(s.mean, 6));
    add(tr("std"), viewNumber(s.std, 6));
    add(tr("NaN"), viewCount(s.nan), s.nan > 0);
    add(tr("+Inf"), viewCount(s.posInf), s.posInf > 0);
    add(tr("-Inf"), viewCount(s.negInf), s.negInf > 0);
    add(tr("over fp16 (|x| > 65504)"), viewCount(s.overFp16), s.overFp16 > 0);
    add(tr("fp16-subnormal (|x| < 2^-14)"), viewCount(s.subnormalFp16));
    html += "<table cellspacing='2'>" + rows.join("") + "</table>";
    if (dataRow == m_markRow && column == m_markColumn)
        html +=
            "<p style='color:#c00000'><b>" + tr("First non-finite point of the run.") + "</b></p>";
    m_details->setText(html);
}

QString LayerHeatmap::detailsText() const {
    return plainOf(m_details->text());
}
QString LayerHeatmap::firstNonFiniteText() const {
    return plainOf(m_banner->text());
}

int LayerHeatmap::rowCount() const {
    return int(m_grid->visibleRows().size());
}

QString LayerHeatmap::rowName(int displayRow) const {
    if (displayRow < 0 || displayRow >= rowCount()) return QString();
    return m_data.row(m_grid->visibleRows()[size_t(displayRow)]).name;
}

QColor LayerHeatmap::cellColor(int displayRow, int column) {
    const QImage& img = m_grid->cellImage();
    if (displayRow < 0 || displayRow >= rowCount() || column < 0 || column >= img.width())
        return QColor();
    return img.pixelColor(column, displayRow);
}

QPoint LayerHeatmap::markedCell() const {
    const int dr = m_grid->displayRowOf(m_markRow);
    return dr < 0 ? QPoint(-1, -1) : QPoint(dr, m_markColumn);
}
