// StepPlotData: axis ranges (empty data, NaN/Inf-only steps, log scale with zero and negative
// values) and the note's fp16 bands, without a widget.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "diagnosis/headroom.h"
#include "records/format_types.h"
#include "step_plot_data.h"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

hs::TensorStats finiteStats(double absMax) {
    hs::TensorStats s;
    s.count = s.finite = 4096;
    s.min = -absMax * 0.9;
    s.max = absMax;
    s.absMax = absMax;
    s.mean = -absMax * 0.05;
    s.std = absMax * 0.25;
    return s;
}

// No finite element: min .. std are NaN, as the engine reports them.
hs::TensorStats nonFiniteStats(int64_t nan, int64_t posInf) {
    hs::TensorStats s;
    s.count = nan + posInf;
    s.nan = nan;
    s.posInf = posInf;
    return s;
}

hs::StepRecord stepOf(int i, const hs::TensorStats& latent) {
    hs::StepRecord r;
    r.step = i;
    r.sigma = 1.0 - i / 20.0;
    r.latent = r.denoised = r.velocity = latent;
    return r;
}

StepPlotData oneRun() {
    StepPlotData d;
    d.setRunLabels({"fp16"});
    return d;
}

}  // namespace

TEST(StepPlotData, EmptyDataGetDefaultRangesAndNoNote) {
    StepPlotData d = oneRun();
    EXPECT_DOUBLE_EQ(d.stepRange().lower, -0.5);
    EXPECT_DOUBLE_EQ(d.stepRange().upper, 9.5);
    EXPECT_DOUBLE_EQ(d.valueRange().lower, -1.12);  // -1 .. 1 and 6 % padding
    EXPECT_DOUBLE_EQ(d.valueRange().upper, 1.12);
    EXPECT_DOUBLE_EQ(d.countRange().upper, 1.0);
    EXPECT_DOUBLE_EQ(d.countRange().lower, -0.03);
    EXPECT_EQ(d.largestMagnitude(), 0.0);
    EXPECT_EQ(d.nearestStep(3), -1);
    EXPECT_TRUE(d.limitNote().isEmpty());

    d.setLogScale(true);
    EXPECT_DOUBLE_EQ(d.valueRange().upper, hs::kFp16Max * 4);
    EXPECT_DOUBLE_EQ(d.valueRange().lower, 1e-3 / 3);
    EXPECT_TRUE(d.limitShown(hs::kFp16Max, d.valueRange()));
    EXPECT_TRUE(d.limitNote().isEmpty());

    d.setStepCount(50);
    EXPECT_DOUBLE_EQ(d.stepRange().lower, -0.5);
    EXPECT_DOUBLE_EQ(d.stepRange().upper, 49.5);
}

TEST(StepPlotData, NanAndInfOnlyStepsKeepTheDefaultValueRange) {
    StepPlotData d = oneRun();
    d.addStep(0, stepOf(2, nonFiniteStats(4096, 0)));
    d.addStep(0, stepOf(5, nonFiniteStats(1000, 3096)));
    // The steps set the x range, the counts the right axis; no finite value, no value range.
    EXPECT_DOUBLE_EQ(d.stepRange().lower, 1.5);
    EXPECT_DOUBLE_EQ(d.stepRange().upper, 5.5);
    EXPECT_DOUBLE_EQ(d.valueRange().lower, -1.12);
    EXPECT_DOUBLE_EQ(d.valueRange().upper, 1.12);
    EXPECT_DOUBLE_EQ(d.countRange().upper, 4096 * 1.15);
    EXPECT_EQ(d.largestMagnitude(), 0.0);

    QVector<double> keys, values;
    d.curve(0, StepPlotData::AbsMax, &keys, &values);
    ASSERT_EQ(keys, (QVector<double>{2, 5}));
    EXPECT_TRUE(std::isnan(values[0]) && std::isnan(values[1])) << "NaN statistics: a gap";
    d.curve(0, StepPlotData::InfCount, &keys, &values);
    EXPECT_TRUE(std::isnan(values[0])) << "a zero count leaves a gap";
    EXPECT_EQ(values[1], 3096.0);

    const QString note = d.limitNote();
    EXPECT_TRUE(note.contains("fp16 from step 2")) << note.toStdString();
    EXPECT_FALSE(note.contains("Largest")) << "no finite value, no magnitude";
    EXPECT_FALSE(note.contains("off scale")) << note.toStdString();

    d.setLogScale(true);
    EXPECT_DOUBLE_EQ(d.valueRange().lower, 1e-3 / 3);
    EXPECT_DOUBLE_EQ(d.valueRange().upper, hs::kFp16Max * 4);
}

TEST(StepPlotData, LogScaleLeavesOutZeroAndNegativeValues) {
    StepPlotData d = oneRun();
    d.addStep(0, stepOf(0, finiteStats(0.0)));   // |max| 0, std 0
    d.addStep(0, stepOf(1, finiteStats(10.0)));  // min -9, mean -0.5, std 2.5
    const StepPlotRange linear = d.valueRange();
    EXPECT_LT(linear.lower, -9.0) << "linear: the signed minimum is in range";

    d.setLogScale(true);
    EXPECT_FALSE(d.seriesShown(StepPlotData::Min));
    EXPECT_FALSE(d.seriesShown(StepPlotData::Mean));
    EXPECT_TRUE(d.seriesShown(StepPlotData::AbsMax));
    const StepPlotRange log = d.valueRange();
    EXPECT_DOUBLE_EQ(log.lower, 2.5 / 3) << "the smallest positive value (std 2.5) sets it";
    EXPECT_DOUBLE_EQ(log.upper, hs::kFp16Max * 4);
    EXPECT_FALSE(d.limitShown(-hs::kFp16Max, log)) << "no negative limit on a log axis";

    QVector<double> keys, values;
    d.curve(0, StepPlotData::AbsMax, &keys, &values);
    EXPECT_TRUE(std::isnan(values[0])) << "zero: a gap on the log scale";
    EXPECT_EQ(values[1], 10.0);
    d.curve(0, StepPlotData::Min, &keys, &values);
    EXPECT_TRUE(std::isnan(values[1])) << "negative: a gap on the log scale";
    d.setLogScale(false);
    d.curve(0, StepPlotData::Min, &keys, &values);
    EXPECT_EQ(values[1], -9.0);

    // Only zeros on the log scale: the default range, as with no data.
    StepPlotData zeros = oneRun();
    zeros.addStep(0, stepOf(0, finiteStats(0.0)));
    zeros.setLogScale(true);
    EXPECT_DOUBLE_EQ(zeros.valueRange().lower, 1e-3 / 3);
}

TEST(StepPlotData, LimitsJoinTheRangeWhenTheDataComeClose) {
    StepPlotData d = oneRun();
    d.addStep(0, stepOf(0, finiteStats(hs::kFp16Max / 8 - 1)));
    EXPECT_LT(d.valueRange().upper, hs::kFp16Max) << "more than 3 bits below: data alone";
    EXPECT_TRUE(d.limitNote().contains("fp16 limit off scale"));
    d.addStep(0, stepOf(1, finiteStats(hs::kFp16Max / 8)));
    EXPECT_GT(d.valueRange().upper, hs::kFp16Max);
    EXPECT_LT(d.valueRange().lower, -hs::kFp16Max) << "the signed minimum pulls in -65504";
    EXPECT_FALSE(d.limitNote().contains("fp16 limit off scale"));

    // bf16's limit: on the log scale only within 6 decades of the data.
    const double bf16Max = hs::limitsOf(hs::Format::BF16).maxFinite;
    d.setLogScale(true);
    EXPECT_FALSE(d.limitShown(bf16Max, d.valueRange()));
    EXPECT_TRUE(d.limitNote().contains("bf16 limit")) << d.limitNote().toStdString();
    d.addStep(0, stepOf(2, finiteStats(bf16Max / 1e5)));
    EXPECT_TRUE(d.limitShown(bf16Max, d.valueRange()));
    EXPECT_FALSE(d.limitNote().contains("bf16 limit"));
}

TEST(StepPlotData, NoteNamesTheFp16BandOfTheLargestMagnitude) {
    ASSERT_EQ(hs::kFp16Max, 65504.0);
    ASSERT_EQ(hs::kFp16OverflowThreshold, 65520.0);

    // 65504 is fp16's largest finite value: stored exactly, headroom 1x.
    const QString atMax = StepPlotData::magnitudeNote(65504.0);
    EXPECT_TRUE(atMax.contains("headroom to the fp16 limit 1x")) << atMax.toStdString();
    EXPECT_FALSE(atMax.contains("Inf"));
    EXPECT_FALSE(atMax.contains("saturates"));

    // Above 65504 and below 65520: rounds back to 65504, stays finite.
    for (double v : {65504.5, 65519.99}) {
        const QString note = StepPlotData::magnitudeNote(v);
        EXPECT_TRUE(note.contains("rounds to 65504 in fp16 (saturates)")) << note.toStdString();
        EXPECT_FALSE(note.contains("would be Inf")) << note.toStdString();
    }
    EXPECT_TRUE(StepPlotData::magnitudeNote(65519.99).contains("65519.99"))
        << "the digits that decide the band are shown";

    // From 65520 on: Inf.
    for (double v : {65520.0, 65536.0, 1e9}) {
        const QString note = StepPlotData::magnitudeNote(v);
        EXPECT_TRUE(note.contains("would be Inf in fp16")) << note.toStdString();
        EXPECT_FALSE(note.contains("saturates")) << note.toStdString();
    }
    EXPECT_TRUE(StepPlotData::magnitudeNote(65520.0).contains("Largest |x| 65520 "));
}

TEST(StepPlotData, LimitNoteUsesTheBandOfTheLargestStep) {
    StepPlotData d;
    d.setRunLabels({"fp16", "bf16"});
    d.addStep(0, stepOf(0, finiteStats(100.0)));
    d.addStep(1, stepOf(0, finiteStats(65519.99)));
    EXPECT_TRUE(d.limitNote().contains("saturates")) << d.limitNote().toStdString();
    EXPECT_EQ(d.largestMagnitude(), 65519.99);

    d.addStep(1, stepOf(1, finiteStats(65520.0)));
    EXPECT_TRUE(d.limitNote().contains("would be Inf in fp16")) << d.limitNote().toStdString();

    // A non-finite |max| does not count as the largest magnitude.
    hs::TensorStats inf = finiteStats(1.0);
    inf.absMax = std::numeric_limits<double>::infinity();
    d.addStep(0, stepOf(1, inf));
    EXPECT_EQ(d.largestMagnitude(), 65520.0);

    // The tensor choice picks the statistics the note reads.
    hs::StepRecord s = stepOf(2, finiteStats(10.0));
    s.velocity = finiteStats(70000.0);
    d.clear();
    d.addStep(0, s);
    EXPECT_TRUE(d.limitNote().contains("headroom")) << d.limitNote().toStdString();
    d.setTensor(StepPlotData::Tensor::Velocity);
    EXPECT_TRUE(d.limitNote().contains("would be Inf in fp16")) << d.limitNote().toStdString();
    EXPECT_EQ(d.nearestStep(kNaN), -1) << "NaN is near no step";
    EXPECT_EQ(d.nearestStep(1.9), 2);
}
