#include "cli/cli_report.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "base/cancel.h"
#include "cli/command.h"
#include "cli/run_progress.h"
#include "diagnosis/advice.h"
#include "io/terminal_text.h"
#include "pipeline/pipeline.h"
#include "records/precision_plan.h"
#include "records/run_types.h"
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
        std::cout << "  " << f.rank << ". " << f.action << fixCheckText(f) << "\n     " << f.cost
                  << "\n";
        if (!f.planText.empty()) std::cout << "     --plan '" << f.planText << "'\n";
    }
}

// The run the advice speaks for: the first that failed, else the first.
const RunRecord& adviceBasis(const Report& report) {
    for (const auto& run : report.runs)
        if (run.findings.firstFailure) return run.record;
    return report.runs.front().record;
}

// --check-fixes: runs each suggested plan not yet tried with the settings of the run the advice
// speaks for; keeps those that give a clean picture (exit status 0: a NaN/Inf a remedy contained
// fails as a bisection trial does), drops the rest with a note, and ranks again.
void checkFixes(Report& report) {
    if (!report.advice || report.runs.empty()) return;
    Advice& a = *report.advice;
    RunConfig cfg = adviceBasis(report).config;
    cfg.keepLatents = false;
    std::vector<Fix> kept;
    for (Fix f : a.fixes) {
        if (f.tried() || f.planText.empty()) {
            kept.push_back(std::move(f));
            continue;
        }
        cfg.plan = PrecisionPlan::parse(f.planText);
        auto pipeline =
            Pipeline::load(cfg.modelDir, cfg.modelFiles, cfg.plan, torch::Device(cfg.device));
        StderrProgress progress;
        progress.prefix = "[check " + f.planText + "] ";
        progress.steps = cfg.steps;
        const RunRecord rec = pipeline->run(cfg, &progress);
        if (rec.cancelled) throw Cancelled();
        const int status = exitStatusOf(rec);
        f.triedVerdict = rec.verdict + (status == kExitContained ? ", a NaN/Inf contained" : "");
        std::fprintf(stderr, "check %s: %s\n", printable(f.planText).c_str(),
                     status == kExitOk ? "fixes the run" : printable(f.triedVerdict).c_str());
        if (status == kExitOk) {
            // Tried now: no longer "not yet verified".
            auto& cost = f.costMessage;
            cost.erase(
                std::remove_if(cost.begin(), cost.end(),
                               [](const Message& m) { return m.id == "advice.cost.predicted"; }),
                cost.end());
            if (!cost.empty()) f.cost = englishText(cost);
            kept.push_back(std::move(f));
            continue;
        }
        a.notes.push_back("tried on the same prompt and seed and not offered: " + f.action +
                          " (--plan '" + f.planText + "') gave " + f.triedVerdict);
        a.noteMessages.emplace_back();  // English only: the note's words are the fix's
    }
    for (size_t i = 0; i < kept.size(); ++i) kept[i].rank = int(i) + 1;
    a.fixes = std::move(kept);
}

}  // namespace

void finishReport(const Args& args, Report report, const DeviceInfo& device) {
    addAdvice(report, device);
    if (args.has("check-fixes")) checkFixes(report);
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
    if (r.verdict == "nan/inf" || r.verdict == "black") return kExitNonFinite;
    return r.firstNonFinite ? kExitContained : kExitOk;
}

std::string containedNote(const RunRecord& r) {
    if (exitStatusOf(r) != kExitContained) return {};
    const ProbeRecord& at = r.firstNonFinite->at;
    std::string remedies;
    for (const RemedyRule& rule : r.config.plan.remedies())
        if (pathMatches(rule.pattern, at.name))
            remedies += (remedies.empty() ? "" : ",") + rule.pattern + '=' + remedyText(rule);
    return "contained: the image is fine (verdict " + r.verdict + "), but a non-finite value at " +
           at.name + " never reached it" +
           (remedies.empty() ? std::string() : " (the plan's " + remedies + ")") +
           "; exit status 3";
}

}  // namespace hs::cli
