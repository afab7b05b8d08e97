#include "view_heatmap_grid.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "view_format.h"

ViewHeatmapGrid::ViewHeatmapGrid(const ViewHeatmapData* data, QWidget* parent)
    : QAbstractScrollArea(parent), m_data(data) {
    m_cell = std::max(12, fontMetrics().height());
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setMouseTracking(false);
}

int ViewHeatmapGrid::headerHeight() const {
    return 2 * fontMetrics().height() + 6;
}

QSize ViewHeatmapGrid::minimumSizeHint() const {
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    return {QAbstractScrollArea::minimumSizeHint().width(),
            headerHeight() + kMinRowsShown * m_cell + bar + 2 * frameWidth()};
}

void ViewHeatmapGrid::setVisibleRows(std::vector<int> rows) {
    m_rows = std::move(rows);
    m_displayOf.assign(size_t(m_data->rowCount()), -1);
    for (size_t i = 0; i < m_rows.size(); ++i) m_displayOf[size_t(m_rows[i])] = int(i);
    // Label column: the widest name, within reason (long names are elided in the middle).
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(font()), fb(bold);
    int w = 120;
    for (int r : m_rows) {
        const auto& row = m_data->row(r);
        const bool module = row.granularity == hs::ProbeLevel::Module;
        w = std::max(w, (module ? fb : fm).horizontalAdvance(row.name) + 24);
    }
    m_labelWidth = std::min(w, 380);
    dataChanged();
}

int ViewHeatmapGrid::displayRowOf(int dataRow) const {
    if (dataRow < 0 || dataRow >= int(m_displayOf.size())) return -1;
    return m_displayOf[size_t(dataRow)];
}

void ViewHeatmapGrid::dataChanged() {
    m_imageDirty = true;
    updateScrollBars();
    viewport()->update();
}

void ViewHeatmapGrid::setMarked(int dataRow, int column) {
    m_markRow = dataRow;
    m_markColumn = column;
    viewport()->update();
}

void ViewHeatmapGrid::setSelected(int dataRow, int column) {
    m_selRow = dataRow;
    m_selColumn = column;
    viewport()->update();
}

int ViewHeatmapGrid::columnWidth(int column) const {
    // The text-encoding and decode columns are wider: they hold a whole stage each, and their
    // header word must fit.
    return m_data->kindOf(column) == ViewHeatmapData::Column::Step ? m_stepW : 3 * m_cell;
}

int ViewHeatmapGrid::columnX(int column) const {
    if (column <= 0) return 0;
    const int stepsX = 3 * m_cell + kGap;
    if (column <= m_data->stepColumns()) return stepsX + (column - 1) * m_stepW;
    return stepsX + m_data->stepColumns() * m_stepW + kGap;
}

int ViewHeatmapGrid::contentWidth() const {
    const int last = m_data->decodeColumn();
    return columnX(last) + columnWidth(last);
}

int ViewHeatmapGrid::columnAtContentX(int x) const {
    for (int c : {0, m_data->decodeColumn()})
        if (x >= columnX(c) && x < columnX(c) + columnWidth(c)) return c;
    const int stepsX = columnX(1);
    if (x >= stepsX && x < stepsX + m_data->stepColumns() * m_stepW)
        return 1 + (x - stepsX) / m_stepW;
    return -1;
}

QRect ViewHeatmapGrid::cellRect(int displayRow, int column) const {
    const int x = m_labelWidth + columnX(column) - horizontalScrollBar()->value();
    const int y = headerHeight() + displayRow * m_cell - verticalScrollBar()->value();
    return QRect(x, y, columnWidth(column), m_cell);
}

bool ViewHeatmapGrid::cellAt(const QPoint& pos, int* dataRow, int* column) const {
    if (pos.x() < m_labelWidth || pos.y() < headerHeight()) return false;
    const int cx = pos.x() - m_labelWidth + horizontalScrollBar()->value();
    const int cy = pos.y() - headerHeight() + verticalScrollBar()->value();
    const int dr = cy / m_cell;
    const int c = columnAtContentX(cx);
    if (c < 0 || dr < 0 || dr >= int(m_rows.size())) return false;
    *dataRow = m_rows[size_t(dr)];
    *column = c;
    return true;
}

void ViewHeatmapGrid::scrollToCell(int displayRow, int column) {
    if (displayRow < 0) return;
    const int cx = columnX(column), cy = displayRow * m_cell;
    const int vw = viewport()->width() - m_labelWidth, vh = viewport()->height() - headerHeight();
    QScrollBar* h = horizontalScrollBar();
    QScrollBar* v = verticalScrollBar();
    if (cx < h->value() || cx + columnWidth(column) > h->value() + vw) h->setValue(cx - vw / 2);
    // The row near the middle, whole: the view starts on a row boundary.
    if (cy < v->value() || cy + m_cell > v->value() + vh)
        v->setValue(std::max(0, cy - (vh / m_cell) / 2 * m_cell));
}

void ViewHeatmapGrid::updateScrollBars() {
    // Step columns widen to use the room there is (a 20-step run fills the view), up to 3 cells.
    const int room = viewport()->width() - m_labelWidth - 6 * m_cell - 2 * kGap - 2;
    const int n = std::max(1, m_data->stepColumns());
    m_stepW = std::clamp(room / n, m_cell, 3 * m_cell);
    const int vw = std::max(0, viewport()->width() - m_labelWidth);
    const int vh = std::max(0, viewport()->height() - headerHeight());
    horizontalScrollBar()->setRange(0, std::max(0, contentWidth() - vw));
    horizontalScrollBar()->setPageStep(std::max(1, vw));
    horizontalScrollBar()->setSingleStep(m_stepW);
    verticalScrollBar()->setRange(0, std::max(0, int(m_rows.size()) * m_cell - vh));
    verticalScrollBar()->setPageStep(std::max(1, vh));
    verticalScrollBar()->setSingleStep(m_cell);
}

void ViewHeatmapGrid::rebuildImage() {
    const int cols = m_data->columnCount(), rows = int(m_rows.size());
    if (m_image.width() != cols || m_image.height() != rows)
        m_image = QImage(std::max(cols, 1), std::max(rows, 1), QImage::Format_RGB32);
    for (int y = 0; y < rows; ++y) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(y));
        for (int c = 0; c < cols; ++c)
            line[c] = viewHeadroomColor(m_data->cell(m_rows[size_t(y)], c)).rgb();
    }
    m_imageDirty = false;
}

const QImage& ViewHeatmapGrid::cellImage() {
    if (m_imageDirty) rebuildImage();
    return m_image;
}

void ViewHeatmapGrid::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void ViewHeatmapGrid::scrollContentsBy(int, int) {
    viewport()->update();
}

ViewHeatmapGrid::PaintArea ViewHeatmapGrid::paintArea() const {
    PaintArea a;
    a.vw = viewport()->width();
    a.vh = viewport()->height();
    a.hh = headerHeight();
    a.lw = m_labelWidth;
    a.sx = horizontalScrollBar()->value();
    a.sy = verticalScrollBar()->value();
    const int rows = int(m_rows.size());
    a.r0 = std::min(rows, a.sy / m_cell);
    a.r1 = std::min(rows - 1, (a.sy + a.vh - a.hh) / m_cell);
    return a;
}

void ViewHeatmapGrid::paintEvent(QPaintEvent*) {
    ++m_paints;
    QPainter p(viewport());
    const PaintArea a = paintArea();
    p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
    paintCells(p, a);
    paintHeader(p, a);
    paintRowLabels(p, a);
    paintCorner(p, a);
}

void ViewHeatmapGrid::paintCells(QPainter& p, const PaintArea& a) {
    const QImage& img = cellImage();
    // Cells: three blits (text column, step columns, decode column) of the visible rows.
    p.save();
    p.setClipRect(a.lw, a.hh, a.vw - a.lw, a.vh - a.hh);
    if (a.r1 >= a.r0) {
        const int n = a.r1 - a.r0 + 1;
        const int y = a.hh + a.r0 * m_cell - a.sy;
        auto blit = [&](int col, int count) {
            if (count <= 0) return;
            const QRect target(a.lw + columnX(col) - a.sx, y,
                               col == 1 ? count * m_stepW : columnWidth(col), n * m_cell);
            p.drawImage(target, img, QRect(col, a.r0, count, n));
        };
        blit(0, 1);
        blit(1, m_data->stepColumns());
        blit(m_data->decodeColumn(), 1);
        // Thin separators keep neighbouring cells of one colour apart.
        p.setPen(QColor(255, 255, 255, 90));
        for (int r = a.r0; r <= a.r1 + 1; ++r) {
            const int ly = a.hh + r * m_cell - a.sy;
            p.drawLine(a.lw, ly, a.vw, ly);
        }
        const int top = a.hh + a.r0 * m_cell - a.sy, bottom = a.hh + (a.r1 + 1) * m_cell - a.sy;
        for (int c = 0; c <= m_data->columnCount(); ++c) {
            const int lx = a.lw + (c < m_data->columnCount() ? columnX(c) : contentWidth()) - a.sx;
            if (lx >= a.lw && lx <= a.vw) p.drawLine(lx, top, lx, bottom);
        }
    }
    paintCellFrame(p, m_selRow, m_selColumn, palette().color(QPalette::Highlight), Qt::white);
    paintCellFrame(p, m_markRow, m_markColumn, Qt::black, Qt::white);
    p.restore();
}

void ViewHeatmapGrid::paintCellFrame(QPainter& p, int dataRow, int column, const QColor& outer,
                                     const QColor& inner) {
    const int dr = displayRowOf(dataRow);
    if (dr < 0 || column < 0) return;
    const QRect r = cellRect(dr, column);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(outer, 3));
    p.drawRect(r.adjusted(-2, -2, 1, 1));
    p.setPen(QPen(inner, 1));
    p.drawRect(r.adjusted(0, 0, -1, -1));
}

void ViewHeatmapGrid::paintHeader(QPainter& p, const PaintArea& a) {
    // Group titles on the first line, step numbers (thinned to fit) on the second.
    const QPalette& pal = palette();
    const QFontMetrics fm = fontMetrics();
    p.save();
    p.setClipRect(a.lw, 0, a.vw - a.lw, a.hh);
    p.fillRect(a.lw, 0, a.vw - a.lw, a.hh, pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    const int line = fm.height();
    auto headerText = [&](int x, int w, int row, const QString& t) {
        p.drawText(QRect(a.lw + x - a.sx, 2 + row * line, w, line), Qt::AlignCenter, t);
    };
    const int dc = m_data->decodeColumn();
    headerText(columnX(0), columnWidth(0), 0, tr("text"));
    headerText(columnX(0), columnWidth(0), 1, tr("enc."));
    headerText(columnX(dc), columnWidth(dc), 0, tr("VAE"));
    headerText(columnX(dc), columnWidth(dc), 1, tr("decode"));
    if (m_data->stepColumns() > 0) {
        const int stepsW = m_data->stepColumns() * m_stepW;
        const QString title = tr("sampling step");
        // Keep the title over the visible part of the steps.
        const int visL = std::max(columnX(1), a.sx),
                  visR = std::min(columnX(1) + stepsW, a.sx + a.vw - a.lw);
        if (visR > visL) headerText(visL, visR - visL, 0, title);
        const int digits = fm.horizontalAdvance(QString::number(m_data->stepColumns() - 1)) + 4;
        int every = 1;
        for (int k : {1, 2, 5, 10, 20, 50, 100})
            if (k * m_stepW >= digits) {
                every = k;
                break;
            }
        for (int s = 0; s < m_data->stepColumns(); s += every)
            headerText(columnX(s + 1) - (every > 1 ? m_stepW : 0),
                       every > 1 ? 3 * m_stepW : m_stepW, 1, QString::number(s));
    }
    p.restore();
}

void ViewHeatmapGrid::paintRowLabels(QPainter& p, const PaintArea& a) {
    // Modules bold, layers indented; the first non-finite row in red with a marker.
    const QPalette& pal = palette();
    p.save();
    p.setClipRect(0, a.hh, a.lw, a.vh - a.hh);
    p.fillRect(0, a.hh, a.lw, a.vh - a.hh, pal.color(QPalette::Window));
    QFont bold = font();
    bold.setBold(true);
    for (int r = a.r0; r <= a.r1; ++r) {
        const int dataRow = m_rows[size_t(r)];
        const auto& row = m_data->row(dataRow);
        const bool module = row.granularity == hs::ProbeLevel::Module;
        const bool marked = dataRow == m_markRow;
        const QRect rect(4, a.hh + r * m_cell - a.sy, a.lw - 8, m_cell);
        if (dataRow == m_selRow)
            p.fillRect(0, rect.y(), a.lw, m_cell, pal.color(QPalette::Midlight));
        p.setFont(module || marked ? bold : font());
        p.setPen(marked   ? QColor(200, 0, 0)
                 : module ? pal.color(QPalette::WindowText)
                          : pal.color(QPalette::Disabled, QPalette::WindowText).darker(130));
        const QString text = (marked ? QString::fromUtf8("\u25B6 ") : QString()) + row.name;
        p.drawText(rect, Qt::AlignVCenter | Qt::AlignLeft,
                   QFontMetrics(p.font()).elidedText(text, Qt::ElideMiddle, rect.width()));
    }
    p.restore();
}

void ViewHeatmapGrid::paintCorner(QPainter& p, const PaintArea& a) {
    // The top-left corner above the labels, and the lines that set labels and header apart.
    const QPalette& pal = palette();
    p.fillRect(0, 0, a.lw, a.hh, pal.color(QPalette::Window));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRect(4, 2, a.lw - 8, a.hh - 4), Qt::AlignLeft | Qt::AlignBottom, tr("probe point"));
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(0, a.hh - 1, a.vw, a.hh - 1);
    p.drawLine(a.lw - 1, 0, a.lw - 1, a.vh);
}

void ViewHeatmapGrid::mousePressEvent(QMouseEvent* event) {
    int row = -1, column = -1;
    if (event->button() == Qt::LeftButton && cellAt(event->position().toPoint(), &row, &column))
        emit cellClicked(row, column);
}

QString ViewHeatmapGrid::cellToolTip(int dataRow, int column) const {
    const auto* cell = m_data->cell(dataRow, column);
    const QString name = m_data->row(dataRow).name;
    const int step = m_data->stepOf(column);
    const QString where = column == 0                        ? tr("text encoding")
                          : column == m_data->decodeColumn() ? tr("VAE decode")
                                                             : tr("step %1").arg(step);
    if (!cell || cell->empty()) return tr("%1\n%2: no record").arg(name, where);
    const hs::TensorStats& s = cell->stats;
    QString text = tr("%1\n%2: |max| %3").arg(name, where, viewNumber(s.absMax));
    const double h = viewHeadroomLog2(s);
    if (std::isfinite(h)) text += tr(", log2(|max|/65504) = %1").arg(h, 0, 'f', 1);
    if (s.nonFinite() > 0)
        text += "\n" + tr("NaN %1, +Inf %2, -Inf %3")
                           .arg(viewCount(s.nan), viewCount(s.posInf), viewCount(s.negInf));
    return text;
}

bool ViewHeatmapGrid::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        int row = -1, column = -1;
        if (cellAt(help->pos(), &row, &column)) {
            QToolTip::showText(help->globalPos(), cellToolTip(row, column), viewport());
        } else if (help->pos().x() < m_labelWidth && help->pos().y() >= headerHeight()) {
            const int dr =
                (help->pos().y() - headerHeight() + verticalScrollBar()->value()) / m_cell;
            if (dr >= 0 && dr < int(m_rows.size()))
                QToolTip::showText(help->globalPos(), m_data->row(m_rows[size_t(dr)]).name,
                                   viewport());
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}
