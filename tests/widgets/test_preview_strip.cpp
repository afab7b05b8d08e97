// PreviewStrip: nearest-neighbour thumbnails, full decodes in place, NaN legend, clicks, layout.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QMouseEvent>
#include <QScrollBar>
#include <cmath>

#include "coloured_preview.h"
#include "preview_strip.h"
#include "view_format.h"

namespace {

// A w x h preview filled by `f(x, y) -> QColor`; `nanFrom` marks pixels with x >= nanFrom as
// NaN (magenta, as the engine paints them).
template <class F>
hs::PreviewImage preview(int step, int w, int h, F f, bool full = false, int nanFrom = 1 << 30) {
    return hs::test::colouredPreview(step, w, h, f, full, nanFrom);
}

hs::PreviewImage solid(int step, const QColor& c, bool full = false, int size = 8) {
    return preview(
        step, size, size, [&](int, int) { return c; }, full);
}

QImage grabCanvas(PreviewStrip& strip) {
    QApplication::processEvents();
    return strip.canvas()->grab().toImage();
}

}  // namespace

TEST(PreviewStrip, ProjectionIsEnlargedWithNearestNeighbour) {
    PreviewStrip strip;
    strip.setThumbnailSize(96);
    strip.setStepCount(4);
    strip.resize(600, 200);
    strip.show();
    // 8x8 checkerboard of black and white: enlarged 12x, every pixel must stay pure.
    ASSERT_TRUE(strip.addPreview(preview(1, 8, 8, [](int x, int y) {
        return (x + y) % 2 ? QColor(Qt::white) : QColor(Qt::black);
    })));
    const QImage img = grabCanvas(strip);
    const QRect box = strip.thumbnailRect(1);
    int blended = 0;
    for (int y = box.top(); y <= box.bottom(); y += 3)
        for (int x = box.left(); x <= box.right(); x += 3) {
            const QColor c = img.pixelColor(x, y);
            if (c != QColor(Qt::white) && c != QColor(Qt::black)) ++blended;
        }
    EXPECT_EQ(blended, 0) << "smooth scaling would blend the checkerboard into grey";
    // Top-left source pixel (black) covers a 12x12 block; its neighbour (white) starts at 12.
    EXPECT_EQ(img.pixelColor(box.left() + 11, box.top() + 5), QColor(Qt::black));
    EXPECT_EQ(img.pixelColor(box.left() + 12, box.top() + 5), QColor(Qt::white));
}

TEST(PreviewStrip, NanPreviewIsMagentaWithLegendAndBadge) {
    PreviewStrip strip;
    strip.setStepCount(3);
    strip.resize(500, 200);
    strip.show();
    // Left half a dark picture, right half NaN.
    strip.addPreview(preview(
        0, 8, 8, [](int, int) { return QColor(10, 10, 10); }, false, 4));
    const QImage img = grabCanvas(strip);
    const QRect box = strip.thumbnailRect(0);
    EXPECT_EQ(img.pixelColor(box.right() - 5, box.top() + 10), viewNanColor());
    EXPECT_EQ(img.pixelColor(box.left() + 5, box.top() + 10), QColor(10, 10, 10));
    // The badge at the bottom is black with white text, over the image.
    EXPECT_NE(img.pixelColor(box.left() + 2, box.bottom() - 3), QColor(10, 10, 10));
    EXPECT_TRUE(strip.legendText().contains("NaN pixel"));
    EXPECT_TRUE(strip.legendText().contains("Inf pixel"));
}

TEST(PreviewStrip, FullDecodeReplacesProjectionOfItsStep) {
    PreviewStrip strip;
    strip.setStepCount(5);
    strip.resize(700, 200);
    strip.show();
    strip.addPreview(solid(2, QColor(200, 0, 0)));
    EXPECT_TRUE(strip.hasPreview(2));
    EXPECT_FALSE(strip.showsFullDecode(2));
    strip.addPreview(solid(2, QColor(0, 160, 0), true, 64));
    EXPECT_TRUE(strip.showsFullDecode(2));
    strip.addPreview(solid(2, QColor(0, 0, 200)));  // a later projection keeps the decode on top
    QImage img = grabCanvas(strip);
    const QRect box = strip.thumbnailRect(2);
    EXPECT_EQ(img.pixelColor(box.center()), QColor(0, 160, 0));
    // The "VAE" tag sits in the header above the thumbnail: a blue badge.
    bool tag = false;
    for (int x = box.left(); x <= box.right(); ++x)
        for (int y = 0; y < box.top(); ++y)
            if (img.pixelColor(x, y) == QColor(0, 90, 160)) tag = true;
    EXPECT_TRUE(tag);
    EXPECT_FALSE(strip.hasPreview(3));
}

TEST(PreviewStrip, RejectsFinalImageAndMalformedPreview) {
    PreviewStrip strip;
    strip.setStepCount(2);
    EXPECT_FALSE(strip.addPreview(solid(-1, Qt::red)));
    hs::PreviewImage bad = solid(1, Qt::red);
    bad.rgb.resize(10);
    EXPECT_FALSE(strip.addPreview(bad));
    EXPECT_FALSE(strip.hasPreview(1));
    EXPECT_EQ(strip.stepCount(), 2);
    // A step past the count grows the strip.
    EXPECT_TRUE(strip.addPreview(solid(6, Qt::red)));
    EXPECT_EQ(strip.stepCount(), 7);
}

TEST(PreviewStrip, ClickEmitsTheStep) {
    PreviewStrip strip;
    strip.setStepCount(10);
    strip.resize(1200, 200);
    strip.show();
    for (int i = 0; i < 10; ++i) strip.addPreview(solid(i, QColor(20 * i, 80, 80)));
    std::vector<int> clicked;
    QObject::connect(&strip, &PreviewStrip::stepClicked, [&](int s) { clicked.push_back(s); });
    const QPointF at = strip.thumbnailRect(5).center();
    QMouseEvent press(QEvent::MouseButtonPress, at, strip.canvas()->mapToGlobal(at), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(strip.canvas(), &press);
    ASSERT_EQ(clicked.size(), 1u);
    EXPECT_EQ(clicked[0], 5);
    strip.setSelectedStep(5);
    EXPECT_EQ(strip.selectedStep(), 5);
    const QImage img = grabCanvas(strip);
    const QColor frame =
        img.pixelColor(strip.thumbnailRect(5).left() - 1, strip.thumbnailRect(5).center().y());
    EXPECT_EQ(frame, strip.palette().color(QPalette::Highlight));
}

TEST(PreviewStrip, StripsWithSameStepCountAlignAndScroll) {
    PreviewStrip a, b;
    a.setStepCount(50);
    b.setStepCount(50);
    a.resize(400, 200);
    a.show();
    b.addPreview(solid(49, Qt::red));
    for (int s : {0, 17, 49}) EXPECT_EQ(a.thumbnailRect(s), b.thumbnailRect(s));
    EXPECT_GT(a.horizontalScrollBar()->maximum(), 0) << "50 thumbnails do not fit in 400 px";
    a.setFollowLatest(true);
    a.addPreview(solid(40, Qt::red));
    QApplication::processEvents();
    EXPECT_GT(a.horizontalScrollBar()->value(), 0) << "follows the newest preview";
}

TEST(PreviewStrip, RendersRealisticPreviews) {
    PreviewStrip strip;
    strip.setStepCount(20);
    strip.setThumbnailSize(80);
    strip.setFollowLatest(false);
    strip.resize(1100, 180);
    strip.show();
    // A 16x16 projection that gets brighter, then overflows to NaN from step 12 on; a full
    // decode of step 9 at 128x128.
    for (int i = 0; i < 20; ++i) {
        auto f = [i](int x, int y) {
            const int v = std::min(255, 40 + 9 * i);
            return QColor(v * x / 16, v * y / 16, v / 2 + 40);
        };
        strip.addPreview(preview(i, 16, 16, f, false, i < 11 ? 99 : (i == 11 ? 12 : 0)));
    }
    strip.addPreview(preview(
        9, 128, 128, [](int x, int y) { return QColor((x * 2) % 256, (y * 2) % 256, 128); }, true));
    strip.setSelectedStep(9);
    const QImage img = grabCanvas(strip);
    EXPECT_EQ(img.pixelColor(strip.thumbnailRect(15).center()), viewNanColor());
    const QString dir = qEnvironmentVariable("HALFSCOPE_VIEW_SHOTS");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        strip.grab().toImage().save(dir + "/preview_strip.png");
    }
}
