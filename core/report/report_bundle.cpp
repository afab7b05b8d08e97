#include "report/report_bundle.h"

#include <set>

#include "diagnosis/blocks.h"
#include "report/csv_report.h"
#include "report/html_report.h"
#include "report/report_json.h"

namespace hs {

namespace {

PrecisionPlan planOf(const RunRecord& r) {
    try {
        return PrecisionPlan::parse(r.effectivePlan);
    } catch (const PlanParseError&) {
        return r.config.plan;  // an effective plan that does not parse: the user's rules
    }
}

}  // namespace

AdviceInput adviceInputFor(const Report& report, const DeviceInfo& device) {
    AdviceInput in;
    in.device = device;
    const ReportRun* failing = nullptr;
    const ReportRun* clean = nullptr;
    for (const auto& run : report.runs) {
        if (run.findings.firstFailure && !failing) failing = &run;
        if (!run.findings.firstFailure && !clean) clean = &run;
    }
    if (clean) in.headroom = clean->findings.headroom;
    in.bisection = report.bisection;
    if (failing) {
        in.firstFailure = failing->findings.firstFailure;
        in.components = failing->record.components;
        in.failingPlan = planOf(failing->record);
    } else if (clean) {
        in.components = clean->record.components;
        in.failingPlan = planOf(clean->record);
        std::set<std::string> done;
        for (size_t i : clean->findings.headroom.overflowing) {
            const std::string c = clean->findings.headroom.points[i].component;
            if (done.insert(c).second) in.failingPlan.add(c, Format::FP16);
        }
    }
    return in;
}

void addAdvice(Report& report, const DeviceInfo& device) {
    report.advice = adviseFixes(adviceInputFor(report, device));
}

ReportFiles writeReportFiles(const std::string& base, const Report& report) {
    ReportFiles f{base + ".html", base + ".json", base + "-steps.csv", base + "-layers.csv"};
    writeReportHtml(f.html, report);
    writeReportJson(f.json, report);
    writeStepsCsv(f.stepsCsv, report);
    writeLayersCsv(f.layersCsv, report);
    return f;
}

}  // namespace hs
