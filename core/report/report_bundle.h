#pragma once
// One-call helpers for the CLI and the studio: advice for a whole report, and all report files
// at once. No LibTorch.
#include <string>

#include "diagnosis/device_info.h"
#include "report/report_types.h"
#include "report/html_report.h"

namespace hs {

// Advice from the report's runs: the first run holding a non-finite value is "the failing run"
// (its first failure, components and effective plan); the first run without one gives the
// headroom table; report.bisection is used when present. With no failing run the plan to fix is
// the clean run's effective plan with fp16 for every component predicted to overflow.
AdviceInput adviceInputFor(const Report& report, const DeviceInfo& device);
// report.advice = adviseFixes(adviceInputFor(report, device)).
void addAdvice(Report& report, const DeviceInfo& device);

struct ReportFiles {
    std::string html, json, stepsCsv, layersCsv;
};

// Writes <base>.html, <base>.json, <base>-steps.csv and <base>-layers.csv, each atomically
// (a failure leaves every file that was already there whole). `html` sets the HTML's options (its
// language); the JSON and CSV files are always English. Throws FileError.
ReportFiles writeReportFiles(const std::string& base, const Report& report,
                             const HtmlReportOptions& html = {});

}  // namespace hs
