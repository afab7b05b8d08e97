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

// "the CPU AMD EPYC 7B13 (fp16 emulated)", "the GPU Tesla T4 (cuda:0)"; "" when unknown.
std::string runDeviceWords(const ReportEnvironment& e) {
    if (e.device.empty()) return "";
    if (e.device.rfind("cuda", 0) == 0) {
        const auto sp = e.device.find(' ');
        if (sp == std::string::npos) return "the GPU " + e.device;
        return "the GPU " + e.device.substr(sp + 1) + " (" + e.device.substr(0, sp) + ")";
    }
    const std::string model = e.cpu.substr(0, e.cpu.find(" ("));
    return "the CPU" + (model.empty() ? std::string() : " " + model) + " (fp16 emulated)";
}

}  // namespace

AdviceInput adviceInputFor(const Report& report, const DeviceInfo& device) {
    AdviceInput in;
    in.device = device;
    in.runDevice = runDeviceWords(report.environment);
    const ReportRun* failing = nullptr;
    const ReportRun* clean = nullptr;
    for (const auto& run : report.runs) {
        if (run.findings.firstFailure && !failing) failing = &run;
        if (!run.findings.firstFailure && !clean) clean = &run;
        if (const auto& f = run.findings.firstFailure) {
            in.failedPlans.push_back(planOf(run.record));
            if (f->format == Format::FP16) in.failedComponents.push_back(f->component);
        }
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

ReportFiles writeReportFiles(const std::string& base, const Report& report,
                             const HtmlReportOptions& html) {
    ReportFiles f{base + ".html", base + ".json", base + "-steps.csv", base + "-layers.csv"};
    writeReportHtml(f.html, report, html);
    writeReportJson(f.json, report);
    writeStepsCsv(f.stepsCsv, report);
    writeLayersCsv(f.layersCsv, report);
    return f;
}

}  // namespace hs
