#pragma once
// What the report-writing commands share: the report files beside an HTML path, exit codes.
#include <string>

#include "records/report_types.h"
#include "runtime/report_environment.h"

namespace hs::cli {

// FILE.html -> FILE.html, FILE.json, FILE-steps.csv, FILE-layers.csv (advice added first).
// Prints where they went to stderr.
void writeReportBeside(const std::string& htmlPath, Report report, const std::string& deviceId);

// Exit status for a finished run: 1 when it holds NaN/Inf or is black, else 0.
int exitStatusOf(const RunRecord& r);

}  // namespace hs::cli
