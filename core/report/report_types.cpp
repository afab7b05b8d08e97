#include "report/report_types.h"

#include <ctime>

namespace hs {

RunFindings analyzeRun(const RunRecord& record, const HeadroomOptions& headroom) {
    RunFindings f;
    f.firstFailure = findFirstFailure(record);
    f.headroom = analyzeHeadroom(record, headroom);
    return f;
}

ReportRun makeReportRun(std::string label, RunRecord record, const HeadroomOptions& headroom) {
    ReportRun r;
    r.label = std::move(label);
    r.record = std::move(record);
    r.findings = analyzeRun(r.record, headroom);
    return r;
}

Report makeReport(std::vector<ReportRun> runs, ReportEnvironment environment) {
    Report r;
    r.runs = std::move(runs);
    r.environment = std::move(environment);
    r.createdAt = nowUtcIso8601();
    return r;
}

std::vector<StepDivergence> divergenceFromReference(const Report& report, size_t run) {
    if (run == 0 || run >= report.runs.size()) return {};
    return latentDivergence(report.runs[0].record, report.runs[run].record);
}

std::string nowUtcIso8601() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace hs
