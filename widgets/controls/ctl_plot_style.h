#pragma once
// The plots' looks from the widget palette, in one place: background, axes, tick labels, grid and
// legend from the palette's Base and Text colours, and data colours kept readable on either
// (a curve whose colour is too close to the background is lightened or darkened until it
// stands out, keeping its hue). followPalette() restyles a plot before each replot and replots
// it when its palette changes (QEvent::PaletteChange: the app's theme switched), so a plot needs
// one call and no code of its own.
#include <QColor>

class QCPAxis;
class QCustomPlot;
class QPalette;

namespace ctl {

// WCAG 2 contrast ratio of two opaque colours: 1 (same) .. 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);
// `c` itself when its contrast with `background` is at least `minRatio`, else the nearest
// colour of the same hue and saturation that reaches it (lighter on a dark background, darker
// on a light one); the alpha is kept.
QColor readableOn(const QColor& c, const QColor& background, double minRatio);
// True when the palette's window colour is dark (HSL lightness below one half).
bool isDark(const QPalette& palette);

// Minimum contrasts: text (WCAG AA for normal text) and curves, lines and markers (WCAG's 3:1
// for graphics).
constexpr double kTextContrast = 4.5;
constexpr double kGraphicContrast = 3.0;

// Styles `plot` from `palette` now (no replot).
void stylePlot(QCustomPlot* plot, const QPalette& palette);
// stylePlot() with the plot's own palette before every replot and a replot on a palette change.
void followPalette(QCustomPlot* plot);
// Ticks on whole numbers only (steps, counts): 1, 2, 5, 10 ... apart, as many as fit.
void setWholeNumberTicks(QCPAxis* axis);

}  // namespace ctl
