#include "cli/cli_report.h"

#include <cstdio>
#include <iostream>

#include "cli/command.h"
#include "io/terminal_text.h"
#include "report/report_bundle.h"
#include "runtime/report_environment.h"

namespace hs::cli {

bool wantsAdvice(const Args& args) {
    return args.has("target") || args.has("advise-for") || args.has("target-cc");
}

namespace {

// --target-memory GB: a number above 0 and at most 1024; 0 when not given.
double targetMemory(const Args& args) {
    const auto v = args.get("target-memory");
    if (!v) return 0;
    const std::string why =
        "--target-memory: give the GPU's memory in GB, a number above 0 and at most 1024 (such "
        "as 16 or 11), got '" +
        *v + "'";
    double gb = 0;
    try {
        size_t used = 0;
        gb = std::stod(*v, &used);
        if (used != v->size()) throw UsageError(why);
    } catch (const std::exception&) {
        throw UsageError(why);
    }
    if (!(gb > 0 && gb <= 1024)) throw UsageError(why);
    return gb;
}

}  // namespace

DeviceInfo adviceDeviceFor(const Args& args, const std::string& runDevice) {
    if (args.has("target") && args.has("advise-for"))
        throw UsageError("--advise-for is another name for --target: give one of them");
    const auto named = args.has("target") ? args.get("target") : args.get("advise-for");
    const auto cc = args.get("target-cc");
    const char* namedOption = args.has("target") ? "--target" : "--advise-for";
    if (named && cc)
        throw UsageError(std::string(namedOption) +
                         " names a known GPU and --target-cc gives one by hand: give either "
                         "--target t4 or --target-cc 7.5 --target-memory 16");
    const double memory = targetMemory(args);
    if (!named && !cc) {
        if (args.has("target-memory"))
            throw UsageError(
                "--target-memory sizes a target GPU: give it with --target-cc (e.g. "
                "--target-cc 7.5 --target-memory 16) or --target");
        return deviceInfoFor(runDevice);
    }
    try {
        if (cc) return targetGpuByHand(*cc, memory);
        DeviceInfo d = targetGpu(*named);
        if (memory > 0) d.memoryGB = memory;
        return d;
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string(cc ? "--target-cc" : namedOption) + ": " + e.what());
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
    if (wantsAdvice(args) && !args.has("json") && report.advice)
        printAdvice(*report.advice, device);
    const auto htmlPath = args.get("report");
    if (!htmlPath) return;
    const std::string ext = ".html";
    std::string base = *htmlPath;
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
        base.resize(base.size() - ext.size());
    const ReportFiles f = writeReportFiles(base, report);
    std::fprintf(stderr, "report: %s (data: %s, %s, %s)\n", printable(f.html).c_str(),
                 printable(f.json).c_str(), printable(f.stepsCsv).c_str(),
                 printable(f.layersCsv).c_str());
}

int exitStatusOf(const RunRecord& r) {
    const bool bad = r.verdict == "nan/inf" || r.verdict == "black" || r.firstNonFinite.has_value();
    return bad ? kExitNonFinite : kExitOk;
}

}  // namespace hs::cli
