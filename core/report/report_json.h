#pragma once
// The JSON report: schema "halfscope.report", version 1 (documented in SCHEMA.md). Holds the
// run records whole (config, plans, components, per-step and per-probe statistics, first
// non-finite point, verdict, images as base64 PNG) and the findings, so that a saved report
// can be read back and rendered again. No LibTorch.
#include <string>

#include "report/report_types.h"
#include "report/record_json.h"

namespace hs {

constexpr const char* kReportSchema = "halfscope.report";
constexpr int kReportSchemaVersion = 1;

struct JsonReportOptions {
    RecordJsonOptions record;  // images, latent values
    int indent = 1;            // -1: one line
};

std::string reportToJson(const Report& report, const JsonReportOptions& options = {});
// Atomic (temporary file + rename). Throws FileError.
void writeReportJson(const std::string& path, const Report& report,
                     const JsonReportOptions& options = {});

// Parses a report. Records, environment, bisection and advice are read back; each run's
// findings (first failure, chain, headroom) are recomputed from its record, so a report saved
// by an older build is rendered with the current analysis. Throws ReportFormatError for a
// malformed file, another schema, or a version this build does not read; the message names the
// key path.
Report reportFromJson(const std::string& text);
// Throws FileError when the file cannot be read, is not a regular file, is larger than
// kMaxReportBytes, nests deeper than kMaxJsonDepth or is not JSON (io/bounded_read.h);
// ReportFormatError as above (the message starts with the path).
Report readReportJson(const std::string& path);

}  // namespace hs
