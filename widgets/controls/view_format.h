#pragma once
// Small helpers shared by the run-view widgets (step plot, previews, heatmap, image view, compare
// view): run colours, the non-finite colours, PreviewImage -> QImage, and (view_number.h) the
// number text.
#include <QColor>
#include <QImage>
#include <QString>

#include "records/run_types.h"
#include "records/stats_types.h"
#include "view_number.h"

// The colours the engine paints non-finite pixels with (see pipeline.cpp previewOf): every
// widget uses the same two, so "magenta" means NaN everywhere in the studio.
inline QColor viewNanColor() {
    return QColor(255, 0, 255);
}
inline QColor viewInfColor() {
    return QColor(0, 255, 255);
}

// The engine's names in the studio's language: how a format ran ("native", "emulated") and a
// probe point's level ("module", "layer").
QString viewExecutionName(hs::Execution e);
QString viewProbeLevelName(hs::ProbeLevel l);

// A distinct, readable colour per run (Compare shows up to 4; later runs cycle).
QColor viewRunColor(int run);

// A small block of colour `c` for the rich-text legends beside the views.
QString viewSwatchHtml(const QColor& c);
// A square glyph in colour `c`: a run's or a series' mark in the rich-text legends.
QString viewColorSquareHtml(const QColor& c);
// The mark in `c` and the run's `label` in bold (escaped): a run's title in a legend.
QString viewRunTitleHtml(const QColor& c, const QString& label);

// Deep copy of the 8-bit RGB of a preview ([H][W][3]); a null QImage when the sizes disagree.
QImage viewImageOf(const hs::PreviewImage& p);
// Number of pixels the mask marks as NaN (1) and as Inf (2).
struct ViewNonFinitePixels {
    qint64 nan = 0;
    qint64 inf = 0;
    qint64 total() const { return nan + inf; }
};
ViewNonFinitePixels viewCountNonFinite(const hs::PreviewImage& p);

// Scales for display: nearest neighbour when enlarging (a 16x16 latent projection must stay
// blocky, not blur into a grey smear) and whenever the image holds non-finite pixels (so a
// lone magenta pixel does not fade into pink); smooth when shrinking a finite image.
QImage viewScaled(const QImage& img, const QSize& box, bool hasNonFinite);

// Combines the statistics of two calls of one probe point in one step (a module called twice):
// counts add, extrema combine, mean and std are pooled over the finite values.
hs::TensorStats viewMergeStats(const hs::TensorStats& a, const hs::TensorStats& b);
