#pragma once
// Runs every remedy on a failing plan (pipeline/precision_search.h), prints the ranked table and
// returns its rows by "remedy/scope" ("format/blocksbf16", "scale/component", ...).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "pipeline/precision_search.h"
#include "runtime/demo_location.h"

namespace hs::test {

// The shipped demo's fp16 failure: the white circle on red, seed 2, the transformer in fp16.
inline RunConfig demoFp16Failure() {
    RunConfig cfg;
    cfg.modelDir = findDemoModel();
    EXPECT_FALSE(cfg.modelDir.empty()) << "resources/demo-model is missing";
    cfg.prompt = "a large white circle on the left, red background";
    cfg.seed = 2;
    cfg.plan = PrecisionPlan::parse("transformer=fp16");
    return cfg;
}

inline std::map<std::string, RemedyRow> rankedRemedies(const RunConfig& failing,
                                                       Format safe = Format::BF16,
                                                       RemedyTable* table = nullptr) {
    PrecisionSearchOptions o;
    o.safeFormat = safe;
    o.remedies = {RemedyKind::Format, RemedyKind::Clamp, RemedyKind::Scale,
                  RemedyKind::Fp32Residual};
    o.target = targetGpu("t4");
    const PrecisionSearch s = searchPrecision(failing, o);
    std::map<std::string, RemedyRow> rows;
    if (!s.remedies) return rows;
    std::printf("  %s\n", s.remedies->message.c_str());
    for (const auto& r : s.remedies->rows) {
        std::printf("  %d %-4s diff %.4f PSNR %5.1f dB  %s\n", r.rank, r.passed ? "pass" : "fail",
                    r.outcome.difference, r.psnr, remedyAction(r.candidate).c_str());
        rows[remedyKindName(r.candidate.kind) + "/" + r.candidate.scope +
             (r.candidate.kind == RemedyKind::Format ? formatName(r.candidate.format) : "")] = r;
    }
    if (table) *table = *s.remedies;
    return rows;
}

// Every remedy of `t` ran (no error, an image difference) and there are `rows` of them.
inline void expectEveryRemedyRan(const RemedyTable& t, size_t rows) {
    for (const auto& r : t.rows) {
        EXPECT_TRUE(r.outcome.error.empty()) << r.outcome.error;
        EXPECT_FALSE(std::isnan(r.outcome.difference)) << remedyAction(r.candidate);
    }
    ASSERT_EQ(t.rows.size(), rows);
}

}  // namespace hs::test
