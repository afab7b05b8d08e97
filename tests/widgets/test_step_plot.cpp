// StepPlot: timer-driven replots, limit lines, log scale, hover values, several runs.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <cmath>

#include "step_plot.h"
#include "view_format.h"

namespace {

hs::TensorStats stats(double absMax, int64_t nan = 0, int64_t inf = 0) {
    hs::TensorStats s;
    s.count = 4096;
    s.finite = s.count - nan - inf;
    s.min = -absMax * 0.9;
    s.max = absMax;
    s.absMax = absMax;
    s.mean = absMax * 0.01;
    s.std = absMax * 0.25;
    s.nan = nan;
    s.posInf = inf;
    return s;
}

// A step whose latent is all NaN: no finite element, so min .. std are NaN (as the engine gives).
hs::StepRecord nanStep(int i) {
    hs::StepRecord r;
    r.step = i;
    r.sigma = 1.0 - i / 50.0;
    r.latent.count = r.latent.nan = 4096;
    r.denoised = r.velocity = r.latent;
    return r;
}

hs::StepRecord step(int i, double absMax, int64_t nan = 0, int64_t inf = 0) {
    hs::StepRecord r;
    r.step = i;
    r.sigma = 1.0 - i / 50.0;
    r.latent = stats(absMax, nan, inf);
    r.denoised = stats(absMax * 0.5);
    r.velocity = stats(absMax * 2);
    return r;
}

void waitMs(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 5);
}

// Clearly red pixels in row y of `img`.
int redPixels(const QImage& img, int y) {
    int n = 0;
    for (int x = 0; x < img.width(); ++x) {
        const QColor p = img.pixelColor(x, y);
        if (p.red() > 150 && p.red() > p.green() + 100 && p.red() > p.blue() + 100) ++n;
    }
    return n;
}

// Shows `plot` at 800 x 500 and lets its first paint pass; returns its replot count then.
int shownAndSettled(StepPlot& plot) {
    plot.resize(800, 500);
    plot.show();
    waitMs(80);
    return plot.replotCount();
}

}  // namespace

TEST(StepPlot, BurstOfStepsGivesFewReplots) {
    StepPlot plot;
    const int before = shownAndSettled(plot);
    for (int i = 0; i < 200; ++i) plot.addStep(0, step(i, 1.0 + i));
    EXPECT_EQ(plot.replotCount(), before) << "addStep must not replot";
    EXPECT_TRUE(plot.replotPending());
    waitMs(150);
    const int replots = plot.replotCount() - before;
    EXPECT_GE(replots, 1);
    EXPECT_LE(replots, 2);
    EXPECT_FALSE(plot.replotPending());
    ASSERT_NE(plot.graph(0, StepPlot::AbsMax), nullptr);
    EXPECT_EQ(plot.graph(0, StepPlot::AbsMax)->data()->size(), 200);
}

TEST(StepPlot, StreamedStepsReplotAtTimerRateNotPerStep) {
    StepPlot plot;
    const int before = shownAndSettled(plot);
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 200; ++i) {
        plot.addStep(0, step(i, 1.0 + i));
        QApplication::processEvents();  // the worker's queued signals arrive between events
    }
    waitMs(100);
    const int allowed = int(t.elapsed() / 40) + 3;
    EXPECT_LE(plot.replotCount() - before, allowed);
    EXPECT_LT(plot.replotCount() - before, 200);
}

TEST(StepPlot, HiddenPlotKeepsDataAndRendersWhenShown) {
    StepPlot plot;
    plot.resize(800, 500);
    for (int i = 0; i < 30; ++i) plot.addStep(0, step(i, 1.0 + i));
    plot.flush();
    EXPECT_EQ(plot.replotCount(), 0) << "nothing is rendered for a hidden plot";
    EXPECT_EQ(plot.graph(0, StepPlot::AbsMax)->data()->size(), 30);
    plot.show();
    QApplication::processEvents();
    EXPECT_GE(plot.replotCount(), 1);
}

TEST(StepPlot, StepCountFixesTheXRange) {
    StepPlot plot;
    plot.setStepCount(50);
    plot.addStep(0, step(3, 2.0));
    plot.flush();
    EXPECT_DOUBLE_EQ(plot.plot()->xAxis->range().lower, -0.5);
    EXPECT_DOUBLE_EQ(plot.plot()->xAxis->range().upper, 49.5);
    plot.setStepCount(0);
    plot.flush();
    EXPECT_DOUBLE_EQ(plot.plot()->xAxis->range().upper, 3.5);
}

TEST(StepPlot, Fp16LimitLineIsDrawnWhenDataComeClose) {
    StepPlot plot;
    plot.resize(900, 520);
    plot.show();
    for (int i = 0; i < 20; ++i) plot.addStep(0, step(i, 1000.0 * (i + 1)));  // up to 20000
    plot.flush();
    EXPECT_GT(plot.valueUpper(), hs::kFp16Max) << "within 3 bits of 65504 the limit is in range";
    QApplication::processEvents();
    const QImage img = plot.plot()->grab().toImage();
    const int y = int(std::lround(plot.plot()->yAxis->coordToPixel(hs::kFp16Max)));
    int red = 0;
    for (int dy = -1; dy <= 1; ++dy) red += redPixels(img, y + dy);
    EXPECT_GT(red, 100) << "a red dashed line at y=65504";
    EXPECT_TRUE(plot.limitNote().contains("headroom"));
}

TEST(StepPlot, SmallDataKeepLinearRangeAndSayTheLimitIsOffScale) {
    StepPlot plot;
    for (int i = 0; i < 10; ++i) plot.addStep(0, step(i, 2.0 + i));
    plot.flush();
    EXPECT_LT(plot.valueUpper(), 100.0) << "curves of size ~10 must not be squashed by 65504";
    EXPECT_TRUE(plot.limitNote().contains("off scale"));
}

TEST(StepPlot, LogScaleShowsMagnitudesAndBothLimits) {
    StepPlot plot;
    for (int i = 0; i < 10; ++i) plot.addStep(0, step(i, 3.0 * (i + 1)));
    hs::StepRecord zero = step(10, 0.0);  // |max| 0 and std 0: no point on a log scale
    plot.addStep(0, zero);
    plot.setLogScale(true);
    plot.flush();
    EXPECT_EQ(plot.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    EXPECT_GT(plot.valueLower(), 0.0);
    EXPECT_GT(plot.valueUpper(), hs::kFp16Max);
    EXPECT_FALSE(plot.graph(0, StepPlot::Min)->visible()) << "signed curves hidden on log scale";
    EXPECT_FALSE(plot.graph(0, StepPlot::Mean)->visible());
    EXPECT_TRUE(plot.graph(0, StepPlot::AbsMax)->visible());
    auto data = plot.graph(0, StepPlot::AbsMax)->data();
    EXPECT_TRUE(std::isnan((data->end() - 1)->value)) << "zero leaves a gap";
    EXPECT_TRUE(plot.limitNote().contains("bf16")) << "bf16 far above: said in the note";

    // Data within 6 decades of bf16's limit pull it into range.
    plot.addStep(0, step(11, 1e35));
    plot.flush();
    EXPECT_GT(plot.valueUpper(), 3.3e38);
    plot.setLogScale(false);
    plot.flush();
    EXPECT_TRUE(plot.graph(0, StepPlot::Min)->visible());
}

TEST(StepPlot, HoverShowsExactValuesOfNearestStep) {
    StepPlot plot;
    plot.resize(800, 500);
    plot.show();
    for (int i = 0; i < 10; ++i) plot.addStep(0, step(i, 100.0 + i + 0.25));
    plot.flush();
    EXPECT_EQ(plot.showValuesAt(3.4), 3);
    EXPECT_TRUE(plot.hoverText().contains("Step 3")) << plot.hoverText().toStdString();
    EXPECT_TRUE(plot.hoverText().contains("|max| 103.2")) << plot.hoverText().toStdString();

    std::vector<int> hovered, clicked;
    QObject::connect(&plot, &StepPlot::stepHovered, [&](int s) { hovered.push_back(s); });
    QObject::connect(&plot, &StepPlot::stepClicked, [&](int s) { clicked.push_back(s); });
    const double px = plot.plot()->xAxis->coordToPixel(7.1);
    const double py = plot.plot()->yAxis->coordToPixel(50);
    QMouseEvent move(QEvent::MouseMove, QPointF(px, py), plot.plot()->mapToGlobal(QPointF(px, py)),
                     Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(plot.plot(), &move);
    ASSERT_EQ(hovered.size(), 1u);
    EXPECT_EQ(hovered[0], 7);

    QMouseEvent press(QEvent::MouseButtonPress, QPointF(px, py),
                      plot.plot()->mapToGlobal(QPointF(px, py)), Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QApplication::sendEvent(plot.plot(), &press);
    ASSERT_EQ(clicked.size(), 1u);
    EXPECT_EQ(clicked[0], 7);
}

TEST(StepPlot, NonFiniteCountsGoOnTheRightAxis) {
    StepPlot plot;
    plot.addStep(0, step(0, 10.0));
    plot.addStep(0, step(1, 10.0, 300, 12));
    plot.flush();
    QCPGraph* nan = plot.graph(0, StepPlot::NanCount);
    ASSERT_NE(nan, nullptr);
    EXPECT_EQ(nan->valueAxis(), plot.plot()->yAxis2);
    EXPECT_DOUBLE_EQ((nan->data()->end() - 1)->value, 300.0);
    EXPECT_DOUBLE_EQ((plot.graph(0, StepPlot::InfCount)->data()->end() - 1)->value, 12.0);
    EXPECT_GE(plot.plot()->yAxis2->range().upper, 300.0);
    EXPECT_TRUE(plot.limitNote().contains("from step 1"));
}

TEST(StepPlot, SeveralRunsGetTheirOwnColoursAndLabels) {
    StepPlot plot;
    plot.setRunLabels({"fp16", "bf16", "fp32"});
    for (int i = 0; i < 5; ++i) {
        plot.addStep(0, step(i, 10.0 * (i + 1)));
        plot.addStep(1, step(i, 5.0 * (i + 1)));
        plot.addStep(2, step(i, 4.0 * (i + 1)));
    }
    plot.flush();
    EXPECT_EQ(plot.runCount(), 3);
    for (int r = 0; r < 3; ++r)
        EXPECT_EQ(plot.graph(r, StepPlot::AbsMax)->pen().color(), viewRunColor(r));
    EXPECT_NE(plot.graph(0, StepPlot::Max)->pen().style(),
              plot.graph(0, StepPlot::AbsMax)->pen().style());
    QStringList legendNames;
    for (int i = 0; i < plot.plot()->legend->itemCount(); ++i)
        if (auto* it = qobject_cast<QCPPlottableLegendItem*>(plot.plot()->legend->item(i)))
            legendNames << it->plottable()->name();
    EXPECT_TRUE(legendNames.contains("fp16"));
    EXPECT_TRUE(legendNames.contains("bf16"));
    EXPECT_TRUE(legendNames.contains("fp32"));
    EXPECT_EQ(plot.showValuesAt(2), 2);
    EXPECT_TRUE(plot.hoverText().contains("bf16: min")) << plot.hoverText().toStdString();

    plot.addStep(4, step(0, 1.0));  // past the labels: a run is added
    EXPECT_EQ(plot.runCount(), 5);
    plot.clear();
    plot.flush();
    EXPECT_EQ(plot.graph(0, StepPlot::AbsMax)->data()->size(), 0);
    EXPECT_EQ(plot.runLabels().value(1), "bf16");
}

TEST(StepPlot, TensorChoiceSwitchesTheCurves) {
    StepPlot plot;
    plot.addStep(0, step(0, 8.0));
    plot.flush();
    EXPECT_DOUBLE_EQ(plot.graph(0, StepPlot::AbsMax)->data()->begin()->value, 8.0);
    plot.setTensor(StepPlot::Tensor::Velocity);
    plot.flush();
    EXPECT_DOUBLE_EQ(plot.graph(0, StepPlot::AbsMax)->data()->begin()->value, 16.0);
}

// Realistic screenshots for review: a fp16 run that overflows at step 12 and a bf16 run.
TEST(StepPlot, RendersRealisticRuns) {
    const QString dir = qEnvironmentVariable("HALFSCOPE_VIEW_SHOTS");
    StepPlot plot;
    plot.resize(960, 560);
    plot.setRunLabels({"fp16 (all)", "bf16 (stored)"});
    plot.setStepCount(20);
    plot.show();
    // fp16 grows past 65504 at step 11 (some Inf), then everything is NaN; bf16 carries on.
    for (int i = 0; i < 20; ++i) {
        const double growth = 3.0 * std::pow(2.6, std::min(i, 12));
        plot.addStep(0, i < 11 ? step(i, growth) : i == 11 ? step(i, 61000, 0, 37) : nanStep(i));
        plot.addStep(1, step(i, growth));
    }
    plot.flush();
    QApplication::processEvents();
    QImage linear = plot.grab().toImage();
    plot.setLogScale(true);
    plot.flush();
    plot.showValuesAt(12);
    QApplication::processEvents();
    QImage log = plot.grab().toImage();
    EXPECT_NE(linear, log);
    EXPECT_TRUE(plot.hoverText().contains("NaN 4,096") || plot.hoverText().contains("NaN 4096"));
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        linear.save(dir + "/step_plot_linear.png");
        log.save(dir + "/step_plot_log.png");
        StepPlot single;
        single.resize(960, 560);
        single.setStepCount(20);
        single.show();
        for (int i = 0; i < 20; ++i)
            single.addStep(0, i < 11    ? step(i, 3.0 * std::pow(2.6, i))
                              : i == 11 ? step(i, 61000, 0, 37)
                                        : nanStep(i));
        single.setLogScale(true);
        single.flush();
        QApplication::processEvents();
        single.grab().toImage().save(dir + "/step_plot_single_log.png");
    }
}
