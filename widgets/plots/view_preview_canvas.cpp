#include "view_preview_canvas.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

ViewPreviewCanvas::ViewPreviewCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
    relayout();
}

int ViewPreviewCanvas::headerHeight() const {
    return fontMetrics().height() + 2;
}

QSize ViewPreviewCanvas::sizeHint() const {
    const int w = std::max(1, stepCount()) * (m_thumb + 2 * kPad);
    return QSize(w, headerHeight() + m_thumb + 2 * kPad);
}

void ViewPreviewCanvas::relayout() {
    setFixedSize(sizeHint());
    update();
}

void ViewPreviewCanvas::setStepCount(int steps) {
    steps = std::max(0, steps);
    if (steps == stepCount()) return;
    m_slots.resize(size_t(steps));
    relayout();
}

void ViewPreviewCanvas::setThumbnailSize(int px) {
    px = std::clamp(px, 16, 512);
    if (px == m_thumb) return;
    m_thumb = px;
    for (Slot& s : m_slots) updateCache(s);
    relayout();
}

bool ViewPreviewCanvas::setPreview(const hs::PreviewImage& p) {
    if (p.step < 0) return false;
    QImage img = viewImageOf(p);
    if (img.isNull()) return false;
    if (p.step >= stepCount()) {
        m_slots.resize(size_t(p.step) + 1);
        relayout();
    }
    Slot& s = m_slots[size_t(p.step)];
    const ViewNonFinitePixels bad = viewCountNonFinite(p);
    if (p.fullDecode) {
        // Large decodes are kept small: the strip only ever shows thumbnails of them.
        if (img.width() > kMaxSource || img.height() > kMaxSource)
            img = viewScaled(img, QSize(kMaxSource, kMaxSource), bad.total() > 0);
        s.full = img;
        s.fullSize = QSize(p.width, p.height);
        s.fullBad = bad;
    } else {
        s.projection = img;
        s.projectionSize = QSize(p.width, p.height);
        s.projectionOrigin = QString::fromStdString(p.projection);
        s.projectionBad = bad;
    }
    updateCache(s);
    update(slotRect(p.step));
    return true;
}

void ViewPreviewCanvas::clear() {
    for (Slot& s : m_slots) s = Slot();
    m_selected = -1;
    update();
}

void ViewPreviewCanvas::setSelectedStep(int step) {
    if (step == m_selected) return;
    const int old = m_selected;
    m_selected = step;
    if (old >= 0) update(slotRect(old));
    if (step >= 0) update(slotRect(step));
}

const ViewPreviewCanvas::Slot* ViewPreviewCanvas::slotAt(int step) const {
    if (step < 0 || step >= stepCount()) return nullptr;
    return &m_slots[size_t(step)];
}

QRect ViewPreviewCanvas::slotRect(int step) const {
    const int w = m_thumb + 2 * kPad;
    return QRect(step * w, 0, w, headerHeight() + m_thumb + 2 * kPad);
}

QRect ViewPreviewCanvas::thumbnailRect(int step) const {
    const QRect r = slotRect(step);
    return QRect(r.x() + kPad, r.y() + headerHeight() + kPad, m_thumb, m_thumb);
}

int ViewPreviewCanvas::stepAt(const QPoint& pos) const {
    if (pos.y() < 0 || pos.y() >= height() || pos.x() < 0) return -1;
    const int step = pos.x() / (m_thumb + 2 * kPad);
    return step < stepCount() ? step : -1;
}

void ViewPreviewCanvas::updateCache(Slot& s) {
    const QImage& src = s.showsFull() ? s.full : s.projection;
    const bool bad = s.showsFull() ? s.fullBad.total() > 0 : s.projectionBad.total() > 0;
    s.cache = src.isNull() ? QPixmap()
                           : QPixmap::fromImage(viewScaled(src, QSize(m_thumb, m_thumb), bad));
}

void ViewPreviewCanvas::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    const QPalette& pal = palette();
    p.fillRect(event->rect(), pal.color(QPalette::Window));
    if (stepCount() == 0) return;
    const int w = m_thumb + 2 * kPad;
    const int first = std::max(0, event->rect().left() / w);
    const int last = std::min(stepCount() - 1, event->rect().right() / w);
    const QFontMetrics fm = fontMetrics();
    QFont bold = font();
    bold.setBold(true);
    for (int step = first; step <= last; ++step) {
        const Slot& s = m_slots[size_t(step)];
        const QRect slot = slotRect(step);
        const QRect box = thumbnailRect(step);
        const QRect header(slot.x() + kPad, slot.y(), slot.width() - 2 * kPad, headerHeight());
        p.setPen(pal.color(QPalette::WindowText));
        p.setFont(font());
        p.drawText(header, Qt::AlignLeft | Qt::AlignVCenter, QString::number(step));
        if (s.showsFull()) {
            // The full-decode tag: a filled badge, unmistakable next to the plain projections.
            const QString tag = tr("VAE");
            p.setFont(bold);
            const int tw = QFontMetrics(bold).horizontalAdvance(tag) + 6;
            const QRect tagRect(header.right() - tw, header.y() + 1, tw, header.height() - 2);
            p.fillRect(tagRect, QColor(0, 90, 160));
            p.setPen(Qt::white);
            p.drawText(tagRect, Qt::AlignCenter, tag);
        }
        if (s.empty()) {
            p.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DashLine));
            p.drawRect(box.adjusted(0, 0, -1, -1));
            continue;
        }
        p.fillRect(box, QColor(40, 40, 40));  // letterbox bands, darker than any UI grey
        QRect img(QPoint(0, 0), s.cache.size());
        img.moveCenter(box.center());
        p.drawPixmap(img.topLeft(), s.cache);
        if (!s.showsFull() && s.projectionOrigin.startsWith(QLatin1String("none:"))) {
            // A grey stand-in (PreviewImage::projection): say so on it, the tooltip says why.
            p.setPen(Qt::white);
            p.setFont(font());
            p.drawText(box, Qt::AlignCenter | Qt::TextWordWrap, tr("no latent-to-RGB map"));
        }
        const ViewNonFinitePixels& bad = s.showsFull() ? s.fullBad : s.projectionBad;
        if (bad.total() > 0) {
            QStringList parts;
            if (bad.nan > 0) parts << tr("NaN %1").arg(viewCount(bad.nan));
            if (bad.inf > 0) parts << tr("Inf %1").arg(viewCount(bad.inf));
            const QString text = parts.join(' ');
            const QRect badge(box.x(), box.bottom() - fm.height() - 1,
                              std::min(box.width(), fm.horizontalAdvance(text) + 6),
                              fm.height() + 2);
            p.fillRect(badge, QColor(0, 0, 0, 190));
            p.setPen(Qt::white);
            p.setFont(font());
            p.drawText(badge, Qt::AlignCenter, text);
        }
        if (step == m_selected) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 3));
            p.drawRect(box.adjusted(-2, -2, 1, 1));
        }
    }
}

void ViewPreviewCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    const int step = stepAt(event->position().toPoint());
    if (step >= 0) emit stepClicked(step);
}

bool ViewPreviewCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int step = stepAt(help->pos());
        const Slot* s = slotAt(step);
        if (!s) {
            QToolTip::hideText();
            return true;
        }
        QString text = tr("Step %1").arg(step);
        if (s->empty()) {
            text += "\n" + tr("no preview yet");
        } else if (s->showsFull()) {
            text +=
                "\n" +
                tr("Full VAE decode, %1 x %2").arg(s->fullSize.width()).arg(s->fullSize.height());
            if (s->fullBad.total() > 0)
                text += "\n" + tr("%1 NaN and %2 Inf pixels")
                                   .arg(viewCount(s->fullBad.nan), viewCount(s->fullBad.inf));
        } else {
            text += "\n" + tr("Latent-to-RGB projection, %1 x %2 (enlarged)")
                               .arg(s->projectionSize.width())
                               .arg(s->projectionSize.height());
            if (!s->projectionOrigin.isEmpty())
                text += "\n" + tr("Map: %1").arg(s->projectionOrigin);
            if (s->projectionBad.total() > 0)
                text += "\n" +
                        tr("%1 NaN and %2 Inf pixels")
                            .arg(viewCount(s->projectionBad.nan), viewCount(s->projectionBad.inf));
        }
        if (!s->showsFull()) text += "\n" + tr("Click to decode this step fully");
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}
