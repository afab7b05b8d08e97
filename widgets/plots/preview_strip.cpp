#include "preview_strip.h"

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextDocument>
#include <QVBoxLayout>

#include "view_format.h"
#include "view_preview_canvas.h"

QString PreviewStrip::legendHtml() {
    return viewSwatchHtml(viewNanColor()) + " " + tr("NaN pixel") + " &nbsp; " +
           viewSwatchHtml(viewInfColor()) + " " + tr("Inf pixel") +
           " &nbsp; <span style='background-color:#005aa0;color:white'><b>&nbsp;" + tr("VAE") +
           "&nbsp;</b></span> " +
           tr("full VAE decode; the others are latent-to-RGB projections (low resolution, "
              "enlarged). Click a step to decode it fully.");
}

PreviewStrip::PreviewStrip(QWidget* parent)
    : QWidget(parent),
      m_canvas(new ViewPreviewCanvas),
      m_scroll(new QScrollArea(this)),
      m_legend(new QLabel(this)) {
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(false);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFrameShape(QFrame::NoFrame);
    connect(m_canvas, &ViewPreviewCanvas::stepClicked, this, &PreviewStrip::stepClicked);

    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    m_legend->setText(legendHtml());

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_legend);
    layout->addWidget(m_scroll);
    setThumbnailSize(96);
}

void PreviewStrip::setStepCount(int steps) {
    m_canvas->setStepCount(steps);
}
int PreviewStrip::stepCount() const {
    return m_canvas->stepCount();
}

void PreviewStrip::setThumbnailSize(int px) {
    m_canvas->setThumbnailSize(px);
    fitHeight();
}

void PreviewStrip::fitHeight() {
    // Room for the canvas and (if shown) a horizontal scroll bar, never a vertical one.
    const int bar = m_scrollBarVisible ? m_scroll->horizontalScrollBar()->sizeHint().height() : 0;
    m_scroll->setFixedHeight(m_canvas->sizeHint().height() + bar + 2);
}

void PreviewStrip::setScrollBarVisible(bool visible) {
    m_scrollBarVisible = visible;
    m_scroll->setHorizontalScrollBarPolicy(visible ? Qt::ScrollBarAsNeeded
                                                   : Qt::ScrollBarAlwaysOff);
    fitHeight();
}
int PreviewStrip::thumbnailSize() const {
    return m_canvas->thumbnailSize();
}

bool PreviewStrip::addPreview(const hs::PreviewImage& preview) {
    if (!m_canvas->setPreview(preview)) return false;
    if (m_follow) {
        const QRect r = m_canvas->slotRect(preview.step);
        m_scroll->ensureVisible(r.center().x(), r.center().y(), r.width() / 2 + 1, 0);
    }
    return true;
}

void PreviewStrip::clear() {
    m_canvas->clear();
}
void PreviewStrip::setSelectedStep(int step) {
    m_canvas->setSelectedStep(step);
}
int PreviewStrip::selectedStep() const {
    return m_canvas->selectedStep();
}
void PreviewStrip::setLegendVisible(bool visible) {
    m_legend->setVisible(visible);
}

bool PreviewStrip::hasPreview(int step) const {
    const auto* s = m_canvas->slotAt(step);
    return s && !s->empty();
}

bool PreviewStrip::showsFullDecode(int step) const {
    const auto* s = m_canvas->slotAt(step);
    return s && s->showsFull();
}

QRect PreviewStrip::thumbnailRect(int step) const {
    return m_canvas->thumbnailRect(step);
}
QWidget* PreviewStrip::canvas() const {
    return m_canvas;
}
QScrollBar* PreviewStrip::horizontalScrollBar() const {
    return m_scroll->horizontalScrollBar();
}

QString PreviewStrip::legendText() const {
    QTextDocument doc;
    doc.setHtml(m_legend->text());
    return doc.toPlainText();
}
