// halfscope-cli report: re-renders a saved report (its JSON) as HTML and CSV.
#include <cstdio>

#include "cli/cli_report.h"
#include "cli/command.h"
#include "io/terminal_text.h"
#include "report/report_bundle.h"
#include "report/report_json.h"

namespace hs::cli {
namespace {

int runReport(const Args& args) {
    args.allowOnly({"out", HS_TARGET_OPTIONS});
    if (args.positional().size() != 1)
        throw UsageError(
            "give one saved report, e.g. halfscope-cli report run.json --out run.html");
    Report r = readReportJson(args.positional()[0]);
    if (wantsAdvice(args)) addAdvice(r, adviceDeviceFor(args, "cpu"));
    std::string base = args.get("out").value_or(args.positional()[0]);
    for (const char* ext : {".html", ".json"})
        if (base.size() > 5 && base.compare(base.size() - 5, 5, ext) == 0)
            base.resize(base.size() - 5);
    const ReportFiles f = writeReportFiles(base, r);
    std::fprintf(stderr, "report: %s (data: %s, %s, %s)\n", printable(f.html).c_str(),
                 printable(f.json).c_str(), printable(f.stepsCsv).c_str(),
                 printable(f.layersCsv).c_str());
    return kExitOk;
}

const Registrar kReportCommand(
    {"report",
     "re-render a saved report (JSON) as HTML and CSV",
     "usage: halfscope-cli report SAVED.json [--out FILE.html]\n"
     "                            [--target GPU | --target-cc X.Y] [--target-memory GB]\n\n"
     "Reads a report written by generate, compare or bisect --report (or by the\n"
     "studio) and writes the HTML, JSON and CSV files again, with this version's\n"
     "analysis of the saved records. Without --out the files replace SAVED's.\n"
     "--target GPU (t4, v100-32, 7.5, ...; --advise-for is an alias) or --target-cc X.Y\n"
     "--target-memory GB redoes the advice for that GPU.\n\n"
     "exit status: 0 written, 2 usage or input error (a malformed file: the\n"
     "message names the key)\n\n" HS_ADVISE_FOR_HELP,
     runReport,
     {}});

}  // namespace
}  // namespace hs::cli
