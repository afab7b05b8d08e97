#pragma once
// Runs every remedy on a failing plan (pipeline/precision_search.h), prints the ranked table and
// returns its rows by "remedy/scope" ("format/blocksbf16", "scale/component", ...).
#include <cstdio>
#include <map>
#include <string>

#include "pipeline/precision_search.h"

namespace hs::test {

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

}  // namespace hs::test
