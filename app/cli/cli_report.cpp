#include "cli/cli_report.h"

#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "report/report_bundle.h"
#include "runtime/report_environment.h"

namespace hs::cli {

DeviceInfo adviceDeviceFor(const Args& args, const std::string& runDevice) {
    const auto gpu = args.get("advise-for");
    if (!gpu) return deviceInfoFor(runDevice);
    try {
        return targetGpu(*gpu);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--advise-for: ") + e.what());
    }
}

namespace {

void printAdvice(const Advice& a, const DeviceInfo& device) {
    std::cout << "advice for " << device.describe() << ": " << a.headline << "\n";
    for (const auto& n : a.notes) std::cout << "  note: " << n << "\n";
    for (const auto& f : a.fixes) {
        std::cout << "  " << f.rank << ". " << f.action << (f.verified ? " (verified)" : "")
                  << "\n     " << f.cost << "\n";
        if (!f.planText.empty()) std::cout << "     --plan '" << f.planText << "'\n";
    }
}

}  // namespace

void finishReport(const Args& args, Report report, const DeviceInfo& device) {
    addAdvice(report, device);
    if (args.has("advise-for") && !args.has("json") && report.advice)
        printAdvice(*report.advice, device);
    const auto htmlPath = args.get("report");
    if (!htmlPath) return;
    const std::string ext = ".html";
    std::string base = *htmlPath;
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
        base.resize(base.size() - ext.size());
    const ReportFiles f = writeReportFiles(base, report);
    std::fprintf(stderr, "report: %s (data: %s, %s, %s)\n", f.html.c_str(), f.json.c_str(),
                 f.stepsCsv.c_str(), f.layersCsv.c_str());
}

int exitStatusOf(const RunRecord& r) {
    const bool bad = r.verdict == "nan/inf" || r.verdict == "black" || r.firstNonFinite.has_value();
    return bad ? kExitNonFinite : kExitOk;
}

}  // namespace hs::cli
