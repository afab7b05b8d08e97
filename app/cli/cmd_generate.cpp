// halfscope-cli generate: one text-to-image run with probes, on the demo model by default.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_report.h"
#include "cli/command.h"
#include "cli/run_options.h"
#include "cli/run_progress.h"
#include "diagnosis/first_failure.h"
#include "io/image_io.h"
#include "inspect/weight_check.h"
#include "base/cancel.h"
#include "pipeline/pipeline.h"
#include "report/record_json.h"

namespace hs::cli {
namespace {

void writeSaved(const RunRecord& rec, const std::string& out) {
    if (!rec.savedImage) return;
    Image img;
    img.width = rec.savedImage->width;
    img.height = rec.savedImage->height;
    img.channels = 3;
    img.pixels = rec.savedImage->rgb;
    writePng(out, img);
}

void printSummary(const RunRecord& rec, const std::string& out) {
    std::cout << "plan " << rec.effectivePlan << "\n";
    for (const auto& c : rec.components)
        std::cout << "  " << c.name << ": " << formatName(c.format) << " ("
                  << executionName(c.execution) << "), stored " << c.storedDtype
                  << (c.streamed ? ", streamed block by block" : "") << "\n";
    for (const auto& note : rec.notes) std::cout << "note: " << note << "\n";
    std::cout << "image: " << rec.verdict << " (" << rec.verdictExplanation << ")\n";
    if (const auto f = findFirstFailure(rec)) std::cout << f->summary() << "\n";
    std::cout << "wrote " << out << " in " << rec.seconds << " s\n";
}

int runGenerate(const Args& args) {
    args.allowOnly(withRunOptions({"out", "report", "json", HS_TARGET_OPTIONS}));
    RunConfig cfg = runConfigFrom(args);
    const DeviceInfo adviceDevice = adviceDeviceFor(args, cfg.device);
    const std::string out = args.require("out");
    auto pipeline =
        Pipeline::load(cfg.modelDir, cfg.modelFiles, cfg.plan, torch::Device(cfg.device));
    for (const auto& line : pipeline->detected()) std::cerr << line << "\n";
    std::cerr << "memory: " << pipeline->memoryPlan() << "\n";
    std::cerr << loadTimeWeightCheck(cfg.modelDir) << "\n";
    applyModelDefaults(args, pipeline->defaults(), cfg);
    StderrProgress progress;
    progress.steps = cfg.steps;
    const RunRecord rec = pipeline->run(cfg, &progress);
    if (rec.cancelled) throw Cancelled();  // Ctrl-C: no PNG of a half-done run
    writeSaved(rec, out);
    if (!args.has("json")) printSummary(rec, out);
    if (args.has("report") || wantsAdvice(args)) {
        const std::string label = cfg.plan.empty() ? "stored dtypes" : cfg.plan.toString();
        Report report = makeReport({makeReportRun(label, rec)}, reportEnvironment(cfg.device));
        report.title = "Halfscope run: " + (cfg.prompt.empty() ? "(empty prompt)" : cfg.prompt);
        finishReport(args, std::move(report), adviceDevice);
    }
    if (args.has("json")) {
        RecordJsonOptions o;
        o.images = false;  // the PNG is on disk; the report JSON holds the images
        auto j = runRecordToJson(rec, o);
        j["output"] = out;
        if (const auto f = findFirstFailure(rec)) j["first_failure_summary"] = f->summary();
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    return exitStatusOf(rec);
}

const Registrar kGenerateCommand(
    {"generate",
     "one text-to-image run with probes (demo model by default)",
     "usage: halfscope-cli generate --out IMG.png [run options] [--plan RULES]\n"
     "                              [--report FILE.html] [--json]\n"
     "                              [--target GPU | --target-cc X.Y] [--target-memory GB]\n\n"
     "Runs the pipeline (the embedded demo model when --model is not given). Without --plan\n"
     "each component runs in its stored dtype; rules name components as model_index.json\n"
     "does, e.g. --plan 'transformer=fp16' or 'vae=fp16,vae.decoder.up_blocks.0=bf16'.\n"
     "The PNG is written as a pipeline saves it (NaN pixels black). --report writes a\n"
     "self-contained HTML report, FILE.json beside it (schema: core/report/SCHEMA.md) and\n"
     "the per-step and per-layer statistics as CSV. Progress on stderr; --json prints the\n"
     "run record on stdout.\n\n"
     "exit status: 0 a clean picture, 1 NaN/Inf or a black image, 2 usage or input "
     "error\n\n" HS_ADVISE_FOR_HELP HS_RUN_OPTIONS_HELP,
     runGenerate,
     {"json"}});

}  // namespace
}  // namespace hs::cli
