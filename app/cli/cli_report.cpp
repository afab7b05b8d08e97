#include "cli/cli_report.h"

#include <cstdio>

#include "cli/command.h"
#include "report/report_bundle.h"
#include "runtime/report_environment.h"

namespace hs::cli {

void writeReportBeside(const std::string& htmlPath, Report report, const std::string& deviceId) {
    const std::string ext = ".html";
    std::string base = htmlPath;
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
        base.resize(base.size() - ext.size());
    addAdvice(report, deviceInfoFor(deviceId));
    const ReportFiles f = writeReportFiles(base, report);
    std::fprintf(stderr, "report: %s (data: %s, %s, %s)\n", f.html.c_str(), f.json.c_str(),
                 f.stepsCsv.c_str(), f.layersCsv.c_str());
}

int exitStatusOf(const RunRecord& r) {
    const bool bad = r.verdict == "nan/inf" || r.verdict == "black" || r.firstNonFinite.has_value();
    return bad ? kExitNonFinite : kExitOk;
}

}  // namespace hs::cli
