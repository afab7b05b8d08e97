// ImageView: empty state, nearest-neighbour scaling with aspect kept, verdict badges, numbers.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QSet>

#include "coloured_preview.h"
#include "image_view.h"
#include "view_format.h"

namespace {

template <class F>
hs::PreviewImage image(int w, int h, F f) {
    return hs::test::colouredPreview(-1, w, h, f, true);
}

QImage shot(ImageView& v) {
    QApplication::processEvents();
    return v.grab().toImage();
}

// Colour at the middle of the badge (left of the header line below the title).
QColor badgePixel(ImageView& v) {
    const QImage img = shot(v);
    const int line = v.fontMetrics().height() + 6;
    return img.pixelColor(7, 2 + line / 2);
}

}  // namespace

TEST(ImageView, EmptyStateBeforeAnyRun) {
    ImageView v;
    v.resize(300, 300);
    v.show();
    EXPECT_EQ(v.verdict(), ImageView::Verdict::None);
    EXPECT_FALSE(v.hasImage());
    EXPECT_TRUE(v.badgeText().isEmpty());
    EXPECT_TRUE(v.imageRect().isEmpty());
    const QImage img = shot(v);
    // Only the window colour, a dashed frame and the hint text: no picture pixels in the middle.
    EXPECT_EQ(img.pixelColor(150, 40), v.palette().color(QPalette::Window));
}

TEST(ImageView, NearestNeighbourAndAspectKept) {
    ImageView v;
    v.resize(420, 400);
    v.show();
    // 8 x 4: left half red, right half blue, with a 1-pixel white column at x = 3.
    v.setResult(
        image(8, 4,
              [](int x, int) {
                  return x == 3 ? QColor(Qt::white) : x < 4 ? QColor(Qt::red) : QColor(Qt::blue);
              }),
        "ok", "mean level 0.4, std 0.3");
    const QRect r = v.imageRect();
    ASSERT_FALSE(r.isEmpty());
    EXPECT_NEAR(double(r.width()) / r.height(), 2.0, 0.03) << "aspect ratio kept";
    const QImage img = shot(v);
    const int px = r.width() / 8;  // one source pixel
    const int y = r.center().y();
    EXPECT_EQ(img.pixelColor(r.left() + 3 * px + px / 2, y), QColor(Qt::white));
    EXPECT_EQ(img.pixelColor(r.left() + 3 * px - 2, y), QColor(Qt::red)) << "no blending";
    EXPECT_EQ(img.pixelColor(r.left() + 4 * px + 2, y), QColor(Qt::blue)) << "no blending";
}

TEST(ImageView, VerdictBadgesAreDistinct) {
    ImageView v;
    v.resize(400, 400);
    v.show();
    const auto grey = image(4, 4, [](int, int) { return QColor(128, 128, 128); });
    QSet<QRgb> colours;
    for (const char* verdict : {"ok", "black", "flat", "nan/inf"}) {
        v.setResult(grey, verdict, "x");
        EXPECT_FALSE(v.badgeText().isEmpty());
        EXPECT_EQ(badgePixel(v), v.badgeColor()) << verdict;
        colours.insert(v.badgeColor().rgb());
    }
    EXPECT_EQ(colours.size(), 4);
    v.setResult(grey, "nan/inf", "x");
    EXPECT_EQ(v.verdict(), ImageView::Verdict::NonFinite);
    EXPECT_TRUE(v.badgeText().contains("NaN"));
}

TEST(ImageView, NumbersCountNonFinitePixelsAsZeroLikeTheSavedPng) {
    ImageView v;
    v.resize(400, 400);
    v.show();
    // 4 x 4 white image whose left half is NaN (engine paints it magenta).
    auto img = image(4, 4, [](int x, int) { return x < 2 ? viewNanColor() : QColor(Qt::white); });
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 2; ++x) img.nonFinite[size_t(y) * 4 + x] = 1;
    hs::TensorStats st;
    st.count = 48;
    st.nan = 24;
    v.setResult(img, "nan/inf", "24 NaN and 0 Inf values of 48; saved as a PNG they turn black",
                st);
    EXPECT_NEAR(v.meanLevel(), 0.5, 1e-9);
    EXPECT_TRUE(v.numbersText().contains("non-finite pixels 8")) << v.numbersText().toStdString();
    EXPECT_TRUE(v.numbersText().contains("24 of 48 values")) << v.numbersText().toStdString();
    EXPECT_TRUE(v.numbersText().contains("mean level 0.500"));
    const QImage s = shot(v);
    const QRect r = v.imageRect();
    EXPECT_EQ(s.pixelColor(r.left() + 3, r.center().y()), viewNanColor()) << "NaN shown magenta";
}

TEST(ImageView, RunRecordStates) {
    ImageView v;
    v.resize(300, 300);
    hs::RunRecord run;
    run.error = "transformer: shape mismatch in x_embedder.weight";
    v.setRun(run);
    EXPECT_EQ(v.verdict(), ImageView::Verdict::Error);
    EXPECT_TRUE(v.explanation().contains("shape mismatch"));
    EXPECT_FALSE(v.hasImage());

    hs::RunRecord cancelled;
    cancelled.cancelled = true;
    v.setRun(cancelled);
    EXPECT_EQ(v.verdict(), ImageView::Verdict::Cancelled);

    hs::RunRecord ok;
    ok.finalImage = image(8, 8, [](int x, int y) { return QColor(x * 30, y * 30, 100); });
    ok.verdict = "ok";
    ok.verdictExplanation = "mean level 0.41, std 0.22";
    ok.image.count = 192;
    v.setRun(ok);
    EXPECT_EQ(v.verdict(), ImageView::Verdict::Ok);
    EXPECT_TRUE(v.hasImage());
    EXPECT_TRUE(v.numbersText().contains("0 of 192 values"));
    v.clear();
    EXPECT_EQ(v.verdict(), ImageView::Verdict::None);
    EXPECT_FALSE(v.hasImage());
}

TEST(ImageView, RendersRealisticResults) {
    const QString dir = qEnvironmentVariable("HALFSCOPE_VIEW_SHOTS");
    struct Case {
        const char* file;
        const char* verdict;
        const char* explanation;
        int nanRows;
        double level;
    };
    const Case cases[] = {
        {"image_view_ok", "ok", "mean level 0.412, std 0.213", 0, 1.0},
        {"image_view_nan", "nan/inf",
         "12288 NaN and 0 Inf values of 12288; saved as a PNG they turn black", 64, 1.0},
        {"image_view_black", "black", "mean level 0.004, brightest 0.02", 0, 0.02},
        {"image_view_partial_nan", "nan/inf",
         "4608 NaN and 96 Inf values of 12288; saved as a PNG they turn black", 24, 1.0}};
    for (const Case& c : cases) {
        ImageView v;
        v.setTitle("fp16 (all): transformer=fp16,vae=fp16");
        v.resize(360, 420);
        v.show();
        auto img = image(64, 64, [&](int x, int y) {
            return QColor(int((60 + 2 * x) * c.level), int((40 + 3 * y) * c.level),
                          int((120 + x - y / 2) * c.level));
        });
        for (int y = 0; y < c.nanRows; ++y)
            for (int x = 0; x < 64; ++x) {
                img.nonFinite[size_t(y) * 64 + x] = 1;
                uint8_t* d = img.rgb.data() + (size_t(y) * 64 + x) * 3;
                d[0] = 255, d[1] = 0, d[2] = 255;
            }
        hs::TensorStats st;
        st.count = 12288;
        st.nan = c.nanRows * 64 * 3;
        v.setResult(img, c.verdict, c.explanation, st);
        const QImage s = shot(v);
        EXPECT_TRUE(v.hasImage());
        if (!dir.isEmpty()) {
            QDir().mkpath(dir);
            s.save(dir + "/" + c.file + ".png");
        }
    }
    ImageView empty;
    empty.resize(360, 420);
    empty.show();
    if (!dir.isEmpty()) shot(empty).save(dir + "/image_view_empty.png");
}
