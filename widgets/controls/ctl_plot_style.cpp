#include "ctl_plot_style.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QPalette>
#include <algorithm>
#include <cmath>

namespace ctl {

namespace {

double channel(double v) {  // sRGB to linear light
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

double luminance(const QColor& c) {
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

QColor mix(const QColor& a, const QColor& b, double t) {  // t of a, 1 - t of b
    return QColor::fromRgbF(float(a.redF() * t + b.redF() * (1 - t)),
                            float(a.greenF() * t + b.greenF() * (1 - t)),
                            float(a.blueF() * t + b.blueF() * (1 - t)));
}

// The colour a translucent brush shows over `background`.
QColor over(const QColor& c, const QColor& background) {
    return mix(QColor(c.red(), c.green(), c.blue()), background, c.alphaF());
}

// The colour an element of `o` (a pen, a text) is drawn in: `current` is what the plot's own
// code last set, unless it is still what this function set, in which case the colour the code
// asked for is remembered in the object. Returns that colour made readable on `background`.
QColor adapt(QObject* o, const char* what, const QColor& current, const QColor& background,
             double ratio) {
    const QByteArray baseKey = QByteArray("ctlBase_") + what;
    const QByteArray shownKey = QByteArray("ctlShown_") + what;
    QColor base = current;
    const QVariant shown = o->property(shownKey.constData());
    if (shown.isValid() && shown.value<QColor>() == current)
        base = o->property(baseKey.constData()).value<QColor>();
    const QColor out = readableOn(base, background, ratio);
    o->setProperty(baseKey.constData(), base);
    o->setProperty(shownKey.constData(), out);
    return out;
}

QPen withColor(QPen p, const QColor& c) {
    p.setColor(c);
    return p;
}

void styleAxis(QCPAxis* axis, const QColor& text, const QColor& line, const QColor& grid,
               const QColor& subGrid) {
    axis->setBasePen(withColor(axis->basePen(), line));
    axis->setTickPen(withColor(axis->tickPen(), line));
    axis->setSubTickPen(withColor(axis->subTickPen(), line));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(withColor(axis->grid()->pen(), grid));
    axis->grid()->setSubGridPen(withColor(axis->grid()->subGridPen(), subGrid));
    axis->grid()->setZeroLinePen(withColor(axis->grid()->zeroLinePen(), line));
}

// Keeps translucent label boxes (drawn white on the light theme) in the background's tone.
QBrush adaptBox(QObject* o, const QBrush& current, const QColor& background) {
    if (current.style() == Qt::NoBrush) return current;
    const QColor boxBase = adapt(o, "box", current.color(), current.color(), 1.0);
    QColor c = boxBase;
    const bool lightBox = QColor(boxBase.rgb()).lightness() > 200;
    if (lightBox && luminance(background) < 0.2) {
        c = background;
        c.setAlpha(boxBase.alpha());
    }
    o->setProperty("ctlShown_box", c);
    QBrush b = current;
    b.setColor(c);
    return b;
}

class PaletteFollower : public QObject {
public:
    explicit PaletteFollower(QCustomPlot* plot) : QObject(plot), m_plot(plot) {}
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (watched == m_plot && e->type() == QEvent::PaletteChange)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        return false;
    }

private:
    QCustomPlot* m_plot;
};

}  // namespace

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor& c, const QColor& background, double minRatio) {
    if (!c.isValid() || contrastRatio(c, background) >= minRatio) return c;
    const bool lighter =
        contrastRatio(Qt::white, background) > contrastRatio(Qt::black, background);
    float h, s, l, a;
    c.getHslF(&h, &s, &l, &a);
    QColor out = c;
    for (int i = 0; i < 100 && contrastRatio(out, background) < minRatio; ++i) {
        l = std::clamp(l + (lighter ? 0.01f : -0.01f), 0.0f, 1.0f);
        out = QColor::fromHslF(h, s, l, a);
        if (l <= 0.0f || l >= 1.0f) break;
    }
    return out;
}

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

void stylePlot(QCustomPlot* plot, const QPalette& palette) {
    const QColor bg = palette.color(QPalette::Base);
    const QColor text = readableOn(palette.color(QPalette::Text), bg, kTextContrast);
    const QColor line = mix(text, bg, 0.55);
    const QColor grid = mix(text, bg, 0.18);
    const QColor subGrid = mix(text, bg, 0.08);
    plot->setBackground(bg);
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes()) styleAxis(axis, text, line, grid, subGrid);
    if (plot->legend) {
        QColor legendBack = bg;
        legendBack.setAlpha(230);
        plot->legend->setBrush(legendBack);
        plot->legend->setBorderPen(withColor(plot->legend->borderPen(), line));
        plot->legend->setTextColor(text);
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            if (auto* item = plot->legend->item(i)) item->setTextColor(text);
    }
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot->plottable(i);
        p->setPen(withColor(p->pen(), adapt(p, "pen", p->pen().color(), bg, kGraphicContrast)));
        if (auto* g = qobject_cast<QCPGraph*>(p)) {
            QCPScatterStyle s = g->scatterStyle();
            if (s.isPenDefined()) {
                s.setPen(
                    withColor(s.pen(), adapt(g, "scatter", s.pen().color(), bg, kGraphicContrast)));
                g->setScatterStyle(s);
            }
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        QCPAbstractItem* item = plot->item(i);
        if (auto* t = qobject_cast<QCPItemText*>(item)) {
            t->setBrush(adaptBox(t, t->brush(), bg));
            const QColor under =
                t->brush().style() == Qt::NoBrush ? bg : over(t->brush().color(), bg);
            t->setColor(adapt(t, "text", t->color(), under, kTextContrast));
        } else if (auto* s = qobject_cast<QCPItemStraightLine*>(item)) {
            s->setPen(withColor(s->pen(), adapt(s, "pen", s->pen().color(), bg, kGraphicContrast)));
        } else if (auto* l = qobject_cast<QCPItemLine*>(item)) {
            l->setPen(withColor(l->pen(), adapt(l, "pen", l->pen().color(), bg, kGraphicContrast)));
        } else if (auto* r = qobject_cast<QCPItemRect*>(item)) {
            r->setPen(withColor(r->pen(), adapt(r, "pen", r->pen().color(), bg, kGraphicContrast)));
        }
    }
}

void followPalette(QCustomPlot* plot) {
    stylePlot(plot, plot->palette());
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot,
                     [plot] { stylePlot(plot, plot->palette()); });
    plot->installEventFilter(new PaletteFollower(plot));
}

void setWholeNumberTicks(QCPAxis* axis) {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis->setTicker(ticker);
}

}  // namespace ctl
