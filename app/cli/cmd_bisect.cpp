// halfscope-cli bisect: the fewest blocks that must leave fp16 for a failing plan to work.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/cancel.h"
#include "cli/cli_report.h"
#include "cli/command.h"
#include "cli/run_options.h"
#include "io/terminal_text.h"
#include "pipeline/precision_search.h"
#include "report/findings_json.h"
#include "report/remedy_json.h"

namespace hs::cli {
namespace {

void printRemedyTable(std::ostream& out, const RemedyTable& t) {
    out << "\nremedies (costs for " << t.target << "; differences to " << t.referencePlan << "):\n";
    char line[160];
    std::snprintf(line, sizeof line, "%3s  %-6s %7s %9s %8s %9s  %s\n", "#", "result", "changes",
                  "diff", "PSNR dB", "s/step*", "remedy");
    out << line;
    for (const auto& r : t.rows) {
        std::snprintf(line, sizeof line, "%3d  %-6s %7d %9.5f %8.1f %9.3f  ", r.rank,
                      r.passed ? "pass" : "FAIL", r.candidate.changes, r.outcome.difference, r.psnr,
                      r.secondsPerStep);
        out << line << remedyAction(r.candidate) << "\n"
            << std::string(50, ' ') << "cost: " << r.cost << "\n";
    }
    out << "* measured here, under emulation\n" << t.message << "\n";
    for (const auto& r : t.rows)
        if (r.rank == 1 && r.passed) out << "best remedy plan: " << r.planText << "\n";
}

int runBisect(const Args& args) {
    args.allowOnly(withRunOptions({"safe", "trial-steps", "max-iterations", "tolerance", "report",
                                   "json", HS_TARGET_OPTIONS, "check-fixes", "remedies"}));
    if (!args.has("plan"))
        throw UsageError("give the failing plan, e.g. --plan 'transformer=fp16'");
    const RunConfig cfg = runConfigFrom(args);
    const DeviceInfo adviceDevice = adviceDeviceFor(args, cfg.device);
    const std::string gpuMemory = applyGpuMemoryOption(args, cfg.device);  // before the trials
    PrecisionSearchOptions o;
    const auto safe = parseFormat(args.get("safe").value_or("bf16"));
    if (!safe || *safe == Format::FP16) throw UsageError("--safe must be bf16 or fp32");
    o.safeFormat = *safe;
    o.trialSteps = args.getInt("trial-steps", 0);
    o.maxIterations = args.getInt("max-iterations", o.maxIterations);
    o.tolerance = args.getDouble("tolerance", o.tolerance);
    if (o.trialSteps < 0 || o.maxIterations < 1 || !(o.tolerance >= 0 && o.tolerance <= 1))
        throw UsageError(
            "--trial-steps must be >= 0, --max-iterations >= 1, --tolerance in [0, 1]");
    if (auto r = args.get("remedies")) {
        try {
            o.remedies = parseRemedyKinds(*r);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--remedies: ") + e.what());
        }
    }
    o.target = adviceDevice;
    o.onStage = [](const std::string& s) { std::fprintf(stderr, "%s...\n", printable(s).c_str()); };
    o.onRemedy = [](const RemedyRow& r) {
        std::fprintf(stderr, "remedy %-13s %s: %s\n", remedyKindName(r.candidate.kind).c_str(),
                     r.passed ? "pass" : "fail", printable(r.planText).c_str());
    };
    o.onTrial = [](const BisectionTrial& t) {
        std::fprintf(stderr, "trial %2d %-10s %s: %s\n", t.iteration, printable(t.phase).c_str(),
                     t.passed ? "pass" : "fail", printable(t.planText).c_str());
    };
    PrecisionSearch s = searchPrecision(cfg, o);
    if (!gpuMemory.empty())
        for (RunRecord* r : {&s.referenceRun, &s.failingRun}) r->notes.push_back(gpuMemory);
    if (s.result.cancelled()) throw Cancelled();
    const bool fixed = s.result.found || (s.remedies && s.remedies->anyPassed());
    const int status = fixed || !s.planFails ? kExitOk : kExitNonFinite;
    if (args.has("report") || wantsAdvice(args)) {
        std::vector<ReportRun> runs;
        if (!s.referenceRun.steps.empty())
            runs.push_back(makeReportRun("reference " + s.referencePlan, s.referenceRun));
        runs.push_back(makeReportRun("failing " + cfg.plan.toString(), s.failingRun));
        Report report = makeReport(std::move(runs), reportEnvironment(cfg.device));
        report.title = "Halfscope precision bisection: " + cfg.plan.toString();
        report.bisection = s.result;
        report.remedies = s.remedies;
        finishReport(args, std::move(report), adviceDevice);
    }
    if (args.has("json")) {
        auto j = bisectionToJson(s.result);
        if (s.remedies) j["remedies"] = remediesToJson(*s.remedies);
        j["exit_status"] = status;
        if (!gpuMemory.empty()) j["gpu_memory"] = gpuMemory;
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        if (!gpuMemory.empty()) std::cout << "note: " << gpuMemory << "\n";
        std::cout << s.result.message << "\n";
        if (s.result.found) std::cout << "plan: " << s.result.planText << "\n";
        std::cout << s.result.trials.size() << " trials\n";
        if (s.remedies) printRemedyTable(std::cout, *s.remedies);
    }
    return status;
}

const Registrar kBisectCommand(
    {"bisect",
     "find the fewest blocks that must leave fp16 for a failing plan to work",
     "usage: halfscope-cli bisect --plan FAILING [--safe bf16|fp32] [--trial-steps N]\n"
     "                            [--max-iterations N] [--tolerance T] [run options]\n"
     "                            [--remedies format,clamp,scale,fp32-residual]\n"
     "                            [--report FILE.html] [--target GPU] [--json]\n\n"
     "Runs the failing plan and a reference (its fp16 components in the safe format, bf16 by\n"
     "default), then bisects over the blocks of the fp16 components as Polygraphy does (how\n"
     "many blocks from the start, or from the end, must run in the safe format), and shrinks\n"
     "the set greedily. A trial passes when it has no NaN/Inf, its image is not black or flat,\n"
     "and its mean pixel difference to the reference is at most T (default 0.05). Every trial\n"
     "goes to stderr; the resulting plan goes to stdout. --trial-steps runs the trials with\n"
     "fewer sampling steps (default: --steps); --max-iterations bounds the trials (default 32).\n\n"
     "--remedies tries the fixes people use on the failing blocks (the bisection's, else the\n"
     "block of the first NaN/Inf) and on their whole component, one trial each: format (the\n"
     "blocks in bf16 and in fp32), clamp (PATH=clamp), scale (PATH=scale:K, K from the\n"
     "reference's largest value), fp32-residual (PATH=fp32-residual). It prints them ranked:\n"
     "passing first, then fewest plan changes, smallest image change (mean difference and PSNR\n"
     "against the reference), cheapest on the --advise-for GPU (default: this device). Without\n"
     "format in the list the bisection is skipped. --json and --report carry the table.\n\n"
     "A NaN/Inf that a clamp or scale rule contained still fails a trial (and makes the plan\n"
     "count as failing): every plan printed here runs with generate's exit status 0, never 3.\n\n"
     "exit status (--json: exit_status): 0 a fixing plan was found (or the plan does not\n"
     "fail), 1 none was found, 2 usage or input error\n\n" HS_ADVISE_FOR_HELP HS_CHECK_FIXES_HELP
         HS_RUN_OPTIONS_HELP,
     runBisect,
     {"json", "check-fixes"}});

}  // namespace
}  // namespace hs::cli
