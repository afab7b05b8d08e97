#pragma once
// Field by field equality of run records, for the tests that write records and read them back
// (the JSON report, the run history).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "diagnosis/advice.h"
#include "records/run_types.h"

namespace hs::test {

// NaN equals NaN; `exact`: bit for bit, else within 4 ULPs (EXPECT_DOUBLE_EQ).
inline void expectSameDouble(double a, double b, const std::string& what, bool exact = true) {
    if (std::isnan(a))
        EXPECT_TRUE(std::isnan(b)) << what;
    else if (exact)
        EXPECT_EQ(a, b) << what;
    else
        EXPECT_DOUBLE_EQ(a, b) << what;
}

inline void expectSameStats(const TensorStats& a, const TensorStats& b, const std::string& what,
                            bool exact = true) {
    EXPECT_EQ(a.count, b.count) << what;
    EXPECT_EQ(a.finite, b.finite) << what;
    expectSameDouble(a.min, b.min, what + ".min", exact);
    expectSameDouble(a.max, b.max, what + ".max", exact);
    expectSameDouble(a.absMax, b.absMax, what + ".abs_max", exact);
    expectSameDouble(a.mean, b.mean, what + ".mean", exact);
    expectSameDouble(a.std, b.std, what + ".std", exact);
    EXPECT_EQ(a.nan, b.nan) << what;
    EXPECT_EQ(a.posInf, b.posInf) << what;
    EXPECT_EQ(a.negInf, b.negInf) << what;
    EXPECT_EQ(a.overFp16, b.overFp16) << what;
    EXPECT_EQ(a.subnormalFp16, b.subnormalFp16) << what;
}

inline void expectSameProbe(const ProbeRecord& a, const ProbeRecord& b, bool exact = true) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.granularity, b.granularity);
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.format, b.format);
    EXPECT_EQ(a.execution, b.execution);
    expectSameStats(a.stats, b.stats, a.name, exact);
}

inline void expectSamePreview(const PreviewImage& a, const PreviewImage& b) {
    EXPECT_EQ(a.width, b.width);
    EXPECT_EQ(a.height, b.height);
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.fullDecode, b.fullDecode);
    EXPECT_EQ(a.rgb, b.rgb);
    EXPECT_EQ(a.nonFinite, b.nonFinite);
}

inline void expectSameComponent(const ComponentInfo& a, const ComponentInfo& b) {
    EXPECT_EQ(std::tie(a.name, a.className, a.storedDtype, a.parameters, a.format, a.execution),
              std::tie(b.name, b.className, b.storedDtype, b.parameters, b.format, b.execution));
}

inline void expectSameFix(const Fix& a, const Fix& b) {
    EXPECT_EQ(std::tie(a.action, a.cost, a.planText), std::tie(b.action, b.cost, b.planText));
    EXPECT_EQ(a.actionMessage, b.actionMessage) << a.action;
    EXPECT_EQ(a.costMessage, b.costMessage) << a.action;
}

inline void expectSameAdvice(const Advice& a, const Advice& b) {
    EXPECT_EQ(a.headline, b.headline);
    EXPECT_EQ(a.headlineMessage, b.headlineMessage);
    EXPECT_EQ(a.noteMessages, b.noteMessages);
    ASSERT_EQ(a.fixes.size(), b.fixes.size());
    for (size_t i = 0; i < a.fixes.size(); ++i) expectSameFix(a.fixes[i], b.fixes[i]);
}

}  // namespace hs::test
