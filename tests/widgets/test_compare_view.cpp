// CompareView: run count, overlaid steps, aligned strips, difference image, divergence curve.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTest>
#include <cmath>

#include "coloured_preview.h"
#include "compare_view.h"
#include "image_view.h"
#include "preview_strip.h"
#include "step_plot.h"
#include "view_format.h"

namespace {

template <class F>
hs::PreviewImage image(int step, int w, int h, F f, bool full = true) {
    return hs::test::colouredPreview(step, w, h, f, full);
}

hs::PreviewImage grey(int level, int size = 8) {
    return image(-1, size, size, [=](int, int) { return QColor(level, level, level); });
}

void markNan(hs::PreviewImage& p, int x, int y) {
    const size_t i = size_t(y) * p.width + x;
    p.nonFinite[i] = 1;
    p.rgb[i * 3] = 255, p.rgb[i * 3 + 1] = 0, p.rgb[i * 3 + 2] = 255;
}

hs::StepRecord step(int i, double absMax, int64_t nan = 0) {
    hs::StepRecord r;
    r.step = i;
    r.sigma = 1.0 - i / 20.0;
    auto& s = r.latent;
    s.count = 4096;
    s.nan = nan;
    s.finite = 4096 - nan;
    if (s.finite > 0) {
        s.min = -absMax, s.max = absMax, s.absMax = absMax, s.mean = 0.01 * absMax;
        s.std = 0.3 * absMax;
    }
    r.denoised = r.velocity = s;
    return r;
}

}  // namespace

TEST(CompareView, AcceptsTwoToFourRuns) {
    CompareView v;
    EXPECT_EQ(v.runCount(), 2);
    EXPECT_FALSE(v.setRuns({"only"}));
    EXPECT_FALSE(v.setRuns({"a", "b", "c", "d", "e"}));
    EXPECT_EQ(v.runCount(), 2) << "a rejected call changes nothing";
    ASSERT_TRUE(v.setRuns({"fp16", "bf16", "fp32"}, {"transformer=fp16", "", "transformer=fp32"}));
    EXPECT_EQ(v.runCount(), 3);
    EXPECT_NE(v.previewStrip(2), nullptr);
    EXPECT_EQ(v.previewStrip(3), nullptr);
    EXPECT_EQ(v.stepPlot()->runLabels(), QStringList({"fp16", "bf16", "fp32"}));
    EXPECT_EQ(v.imageView(0)->title(), "fp16: transformer=fp16");
    EXPECT_EQ(v.imageView(1)->title(), "bf16");
    EXPECT_FALSE(v.addStep(3, step(0, 1)));
    EXPECT_FALSE(v.addPreview(-1, grey(1)));
}

TEST(CompareView, StepsOverlayAndStripsAlign) {
    CompareView v;
    v.resize(1000, 900);
    v.show();
    v.setRuns({"fp16", "bf16"});
    v.setStepCount(40);
    for (int i = 0; i < 5; ++i) {
        v.addStep(0, step(i, 10.0 * (i + 1)));
        v.addStep(1, step(i, 5.0 * (i + 1)));
    }
    v.stepPlot()->flush();
    EXPECT_EQ(v.stepPlot()->graph(0, StepPlot::AbsMax)->data()->size(), 5);
    EXPECT_EQ(v.stepPlot()->graph(1, StepPlot::AbsMax)->data()->size(), 5);
    EXPECT_DOUBLE_EQ(v.divergencePlot()->xAxis->range().upper, 39.5) << "x synchronised";
    EXPECT_EQ(v.previewStrip(0)->stepCount(), 40);
    EXPECT_EQ(v.previewStrip(1)->thumbnailRect(33), v.previewStrip(0)->thumbnailRect(33));
    EXPECT_TRUE(v.addPreview(1, image(
                                    3, 8, 8, [](int, int) { return QColor(Qt::red); }, false)));
    EXPECT_FALSE(v.addPreview(1, grey(3))) << "the final image goes to setFinal()";
    EXPECT_TRUE(v.previewStrip(1)->hasPreview(3));
    EXPECT_FALSE(v.previewStrip(0)->hasPreview(3));
    QApplication::processEvents();
    ASSERT_GT(v.previewStrip(0)->horizontalScrollBar()->maximum(), 0);
    v.previewStrip(0)->horizontalScrollBar()->setValue(120);
    EXPECT_EQ(v.previewStrip(1)->horizontalScrollBar()->value(), 120) << "strips scroll together";

    std::vector<std::pair<int, int>> clicks;
    QObject::connect(&v, &CompareView::previewClicked, [&](int r, int s) {
        clicks.push_back({r, s});
    });
    v.previewStrip(1)->horizontalScrollBar()->setValue(0);
    QWidget* canvas = v.previewStrip(1)->canvas();
    const QPointF at = v.previewStrip(1)->thumbnailRect(3).center();
    QMouseEvent press(QEvent::MouseButtonPress, at, canvas->mapToGlobal(at), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(canvas, &press);
    ASSERT_EQ(clicks.size(), 1u);
    EXPECT_EQ(clicks[0], std::make_pair(1, 3));
}

TEST(CompareView, DifferenceImageAmplifiesAndMarksNonFinite) {
    CompareView v;
    v.resize(1000, 900);
    v.setRuns({"fp16", "bf16", "fp32"});
    auto a = grey(100);
    markNan(a, 2, 5);
    v.setFinal(0, a, "nan/inf", "1 NaN");
    EXPECT_FALSE(v.differenceView()->hasImage()) << "needs both images";
    v.setFinal(1, grey(110), "ok", "fine");
    const ViewDifference& d = v.difference();
    ASSERT_TRUE(d.error.isEmpty());
    EXPECT_EQ(d.maxDiff, 10);
    EXPECT_NEAR(d.gain, 25.5, 1e-9) << "auto gain: the largest difference becomes white";
    EXPECT_EQ(d.nonFinite, 1);
    EXPECT_EQ(d.image.rgb[0], 255);
    const size_t nanPixel = (5 * 8 + 2) * 3;
    EXPECT_EQ(d.image.nonFinite[5 * 8 + 2], 1);
    EXPECT_EQ(QColor(d.image.rgb[nanPixel], d.image.rgb[nanPixel + 1], d.image.rgb[nanPixel + 2]),
              viewNanColor());
    EXPECT_TRUE(v.differenceView()->hasImage());
    EXPECT_TRUE(v.differenceView()->caption().contains("max 10/255"));

    v.setDifferenceGain(4);
    EXPECT_EQ(v.difference().image.rgb[0], 40);

    std::vector<std::pair<int, int>> pairs;
    QObject::connect(&v, &CompareView::differencePairChanged, [&](int x, int y) {
        pairs.push_back({x, y});
    });
    v.setDifferencePair(0, 2);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0], std::make_pair(0, 2));
    EXPECT_FALSE(v.differenceView()->hasImage()) << "run 2 has no image yet";
    v.setFinal(2, grey(100, 16), "ok", "fine");
    EXPECT_FALSE(v.difference().error.isEmpty()) << "sizes differ";
    EXPECT_TRUE(v.differenceView()->caption().contains("differ in size"));
}

TEST(CompareView, DivergenceIsLogScaleWithGapsAndMarks) {
    CompareView v;
    v.setStepCount(10);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    v.setDivergence({1e-4, 1e-2, 0.0, nan, 1.0}, "RMS(x_A - x_B)");
    QCustomPlot* p = v.divergencePlot();
    EXPECT_EQ(p->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // The measure is named in the wrapping line above the plot; the axis keeps a short word.
    EXPECT_EQ(p->yAxis->label(), "divergence");
    bool named = false;
    for (QLabel* l : v.findChildren<QLabel*>()) named |= l->text().contains("RMS(x_A - x_B)");
    EXPECT_TRUE(named);
    auto data = p->graph(0)->data();
    ASSERT_EQ(data->size(), 5);
    EXPECT_DOUBLE_EQ((data->begin() + 1)->value, 1e-2);
    EXPECT_TRUE(std::isnan((data->begin() + 2)->value)) << "zero: a gap";
    EXPECT_TRUE(std::isnan((data->begin() + 3)->value));
    ASSERT_EQ(p->graph(1)->data()->size(), 1) << "the NaN step gets a cross";
    EXPECT_DOUBLE_EQ(p->graph(1)->data()->begin()->key, 3);
    EXPECT_LT(p->yAxis->range().lower, 1e-4);
    EXPECT_GT(p->yAxis->range().upper, 1.0);
}

TEST(CompareView, RendersRealisticComparison) {
    CompareView v;
    v.resize(1400, 1100);
    v.setRuns({"fp16 (all)", "bf16 (stored)", "fp16 + bf16 singles"},
              {"transformer=fp16,vae=fp16", "transformer=bf16,vae=fp32",
               "transformer=fp16,transformer.single_transformer_blocks.*=bf16"});
    v.setStepCount(20);
    v.show();
    QVector<double> divergence;
    for (int i = 0; i < 20; ++i) {
        const double g = 3.0 * std::pow(2.6, std::min(i, 12));
        v.addStep(0, i < 11 ? step(i, g) : step(i, 0, 4096));
        v.addStep(1, step(i, g));
        v.addStep(2, step(i, g * 0.98));
        auto proj = [i](int x, int y) {
            return QColor(std::min(255, 30 + 10 * i + 4 * x), std::min(255, 20 + 8 * i + 4 * y),
                          90);
        };
        hs::PreviewImage p0 = image(i, 16, 16, proj, false);
        if (i >= 11)
            for (int y = 0; y < 16; ++y)
                for (int x = 0; x < 16; ++x) markNan(p0, x, y);
        v.addPreview(0, p0);
        v.addPreview(1, image(i, 16, 16, proj, false));
        v.addPreview(2, image(i, 16, 16, proj, false));
        divergence << (i < 11 ? 1e-3 * std::pow(1.8, i) : std::numeric_limits<double>::quiet_NaN());
    }
    v.setDivergence(divergence, "RMS(x_A - x_B)");
    auto picture = [](int shift) {
        return image(-1, 64, 64, [=](int x, int y) {
            // `shift` perturbs a blob in the middle, as a small precision change would.
            const int d =
                (x - 32) * (x - 32) + (y - 28) * (y - 28) < 200 ? shift * ((x + y) % 5) : 0;
            return QColor((60 + 2 * x + d) % 256, (40 + 3 * y) % 256, (120 + x - y / 2 + d) % 256);
        });
    };
    hs::PreviewImage nanImage = picture(0);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) markNan(nanImage, x, y);
    hs::TensorStats st;
    st.count = 12288;
    st.nan = 12288;
    v.setFinal(0, nanImage, "nan/inf",
               "12288 NaN and 0 Inf values of 12288; saved as a PNG they turn black", st);
    st.nan = 0;
    v.setFinal(1, picture(0), "ok", "mean level 0.41, std 0.21", st);
    v.setFinal(2, picture(3), "ok", "mean level 0.41, std 0.21", st);
    v.setDifferencePair(1, 2);
    v.stepPlot()->setLogScale(true);
    v.stepPlot()->flush();
    QApplication::processEvents();
    v.divergencePlot()->replot();
    const QImage shot = v.grab().toImage();
    EXPECT_TRUE(v.differenceView()->hasImage());
    EXPECT_EQ(v.difference().maxDiff, 12);
    const QString dir = qEnvironmentVariable("HALFSCOPE_VIEW_SHOTS");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        shot.save(dir + "/compare_view.png");
    }
}

// Pointing at the plot shows a step's values under it; nothing of the view may move or resize
// for it (a long readout once widened the plot's column and pushed the A/B selectors away).
TEST(CompareView, HoveringThePlotMovesNothing) {
    CompareView v;
    v.setRuns({"fp16 (all components)", "bf16 (stored dtypes)", "fp16 + bf16 singles"});
    for (int i = 0; i < 10; ++i) {
        v.addStep(0, i < 6 ? step(i, 4e4 * (i + 1)) : step(i, 0, 4096));
        v.addStep(1, step(i, 123456.789 * (i + 1)));
        v.addStep(2, step(i, 98765.4321 * (i + 1)));
    }
    v.resize(900, 700);
    v.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&v));
    v.stepPlot()->flush();
    QApplication::processEvents();
    const QList<QWidget*> all = v.findChildren<QWidget*>();
    QList<QRect> before;
    for (QWidget* w : all) before << w->geometry();
    const QSize minimum = v.minimumSizeHint();

    for (double x : {0.0, 6.0, 9.0}) {
        v.stepPlot()->showValuesAt(x);  // as a move of the pointer over the plot does
        QApplication::processEvents();
        EXPECT_EQ(v.minimumSizeHint(), minimum) << "at step " << x;
        for (int i = 0; i < all.size(); ++i)
            EXPECT_EQ(all[i]->geometry(), before[i])
                << all[i]->metaObject()->className() << " '" << all[i]->objectName().toStdString()
                << "' at step " << x;
    }
}
