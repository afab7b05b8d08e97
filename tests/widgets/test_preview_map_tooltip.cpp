// PreviewStrip's tooltip names where a projection's latent-to-RGB map came from, and a grey tile
// without a map says why.
#include <gtest/gtest.h>

#include <QApplication>
#include <QHelpEvent>
#include <QToolTip>

#include "coloured_preview.h"
#include "preview_strip.h"

namespace {

// The tooltip the strip shows over `step`'s thumbnail.
QString tooltipOver(PreviewStrip& strip, int step) {
    QWidget* canvas = strip.canvas();
    const QPoint at = strip.thumbnailRect(step).center();
    QHelpEvent help(QEvent::ToolTip, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &help);
    return QToolTip::text();
}

hs::PreviewImage projectionWith(int step, const std::string& origin, const QColor& c) {
    hs::PreviewImage p = hs::test::colouredPreview(
        step, 8, 6, [&](int, int) { return c; }, false);
    p.projection = origin;
    return p;
}

}  // namespace

TEST(PreviewMapTooltip, NamesTheMapsOrigin) {
    PreviewStrip strip;
    strip.setStepCount(3);
    strip.resize(500, 200);
    strip.show();
    ASSERT_TRUE(strip.addPreview(
        projectionWith(0, "published: ComfyUI's SDXL latent_rgb_factors", Qt::red)));
    ASSERT_TRUE(strip.addPreview(projectionWith(1, "fitted at load from 8 VAE decodes", Qt::blue)));
    ASSERT_TRUE(strip.addPreview(projectionWith(
        2, "none: a map fitted from the VAE's decodes failed: NaN", QColor(128, 128, 128))));
    QApplication::processEvents();

    const QString published = tooltipOver(strip, 0);
    EXPECT_TRUE(published.contains("Latent-to-RGB projection, 8 x 6")) << published.toStdString();
    EXPECT_TRUE(published.contains("Map: published: ComfyUI's SDXL latent_rgb_factors"))
        << published.toStdString();
    const QString fitted = tooltipOver(strip, 1);
    EXPECT_TRUE(fitted.contains("Map: fitted at load from 8 VAE decodes")) << fitted.toStdString();
    const QString none = tooltipOver(strip, 2);
    EXPECT_TRUE(none.contains("Map: none: a map fitted from the VAE's decodes failed: NaN"))
        << none.toStdString();

    // A full decode of the step takes the tooltip over: no map to name.
    hs::PreviewImage full = hs::test::colouredPreview(
        0, 16, 12, [](int, int) { return QColor(Qt::green); }, true);
    ASSERT_TRUE(strip.addPreview(full));
    const QString decoded = tooltipOver(strip, 0);
    EXPECT_TRUE(decoded.contains("Full VAE decode, 16 x 12")) << decoded.toStdString();
    EXPECT_FALSE(decoded.contains("Map:")) << decoded.toStdString();
}
