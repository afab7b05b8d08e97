// halfscope-cli compare: the same prompt and seed under two to four precision plans.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/cancel.h"
#include "cli/cli_report.h"
#include "cli/command.h"
#include "cli/run_options.h"
#include "cli/run_progress.h"
#include "diagnosis/first_failure.h"
#include "diagnosis/latent_divergence.h"
#include "pipeline/pipeline.h"
#include "pipeline/precision_search.h"

namespace hs::cli {
namespace {

int runCompare(const Args& args) {
    args.allowOnly(withRunOptions({"report", "json", HS_TARGET_OPTIONS, "check-fixes"}));
    const std::vector<std::string> plans = args.all("plan");
    if (plans.size() < 2 || plans.size() > 4)
        throw UsageError(
            "give two to four --plan options (e.g. --plan 'transformer=bf16' "
            "--plan 'transformer=fp16')");
    const RunConfig base = runConfigFrom(args);
    const DeviceInfo adviceDevice = adviceDeviceFor(args, base.device);
    const std::string gpuMemory = applyGpuMemoryOption(args, base.device);  // before the loads
    std::vector<ReportRun> runs;
    int status = kExitOk;
    for (const auto& text : plans) {
        RunConfig cfg = base;
        cfg.plan = PrecisionPlan::parse(text);
        cfg.keepLatents = true;  // the divergence between the runs, step by step
        auto pipeline =
            Pipeline::load(cfg.modelDir, cfg.modelFiles, cfg.plan, torch::Device(cfg.device));
        applyModelDefaults(args, pipeline->defaults(), cfg);
        StderrProgress progress;
        progress.prefix = "[" + text + "] ";
        progress.steps = cfg.steps;
        RunRecord rec = pipeline->run(cfg, &progress);
        if (rec.cancelled) throw Cancelled();
        if (!gpuMemory.empty()) rec.notes.push_back(gpuMemory);
        // The worst of the runs: a failed image (1) over a contained non-finite value (3).
        const int runStatus = exitStatusOf(rec);
        if (runStatus == kExitNonFinite || (runStatus == kExitContained && status == kExitOk))
            status = runStatus;
        runs.push_back(makeReportRun(text, std::move(rec)));
    }

    nlohmann::json j = nlohmann::json::array();
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunRecord& r = runs[i].record;
        nlohmann::json e = {{"plan", plans[i]},
                            {"effective_plan", r.effectivePlan},
                            {"verdict", r.verdict},
                            {"verdict_explanation", r.verdictExplanation},
                            {"seconds", r.seconds}};
        if (const auto& f = runs[i].findings.firstFailure) e["first_failure"] = f->summary();
        e["exit_status"] = exitStatusOf(r);
        if (!gpuMemory.empty()) e["gpu_memory"] = gpuMemory;
        if (const std::string note = containedNote(r); !note.empty()) e["contained"] = note;
        if (i > 0) {
            if (r.savedImage && runs[0].record.savedImage)
                e["image_difference_to_first"] =
                    imageDifference(*r.savedImage, *runs[0].record.savedImage);
            nlohmann::json d = nlohmann::json::array();
            for (const auto& s : latentDivergence(runs[0].record, r))
                d.push_back(s.available ? nlohmann::json(s.relativeL2) : nlohmann::json());
            e["latent_divergence_to_first"] = d;
        }
        j.push_back(e);
    }
    if (args.has("report") || wantsAdvice(args)) {
        Report report = makeReport(runs, reportEnvironment(base.device));
        report.title =
            "Halfscope comparison: " + (base.prompt.empty() ? "(empty prompt)" : base.prompt);
        finishReport(args, std::move(report), adviceDevice);
    }
    if (args.has("json")) {
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        if (!gpuMemory.empty()) std::cout << "note: " << gpuMemory << "\n";
        for (const auto& e : j) {
            std::cout << e["plan"].get<std::string>() << ": " << e["verdict"].get<std::string>()
                      << " (" << e["verdict_explanation"].get<std::string>() << ")";
            if (e.contains("image_difference_to_first")) {
                // Through std::cout like the rest of the line: printf's buffer would come out
                // after it when stdout is a pipe.
                char diff[64];
                std::snprintf(diff, sizeof diff, ", mean |difference| to the first %.4f",
                              e["image_difference_to_first"].get<double>());
                std::cout << diff;
            }
            std::cout << "\n";
            for (const char* key : {"first_failure", "contained"})
                if (e.contains(key)) std::cout << "  " << e[key].get<std::string>() << "\n";
        }
    }
    return status;
}

const Registrar kCompareCommand(
    {"compare",
     "run two to four precision plans on the same prompt and seed",
     "usage: halfscope-cli compare --plan A --plan B [--plan C [--plan D]]\n"
     "                             [run options] [--report FILE.html] [--json]\n"
     "                             [--target GPU | --target-cc X.Y] [--target-memory GB]\n\n"
     "Runs each plan with the same prompt, seed and settings, one after another,\n"
     "and prints each verdict, the first failure, the mean image difference to\n"
     "the first run and the per-step divergence of the latents (--json). With\n"
     "--report, one report shows the runs side by side.\n\n"
     "exit status: 0 every run clean, 1 some run holds NaN/Inf or is black, 3 every image\n"
     "is fine but in some run a NaN/Inf appeared and was contained (clamp, scale: printed\n"
     "as 'contained: ...', and each run's exit_status in --json), 2 usage or input "
     "error\n\n" HS_ADVISE_FOR_HELP HS_CHECK_FIXES_HELP HS_RUN_OPTIONS_HELP,
     runCompare,
     {"json", "check-fixes"}});

}  // namespace
}  // namespace hs::cli
