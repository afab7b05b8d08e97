#include "cli/generate_run.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "base/cancel.h"
#include "cli/cli_report.h"
#include "cli/run_options.h"
#include "cli/run_progress.h"
#include "diagnosis/first_failure.h"
#include "inspect/weight_check.h"
#include "io/image_io.h"
#include "pipeline/pipeline.h"
#include "records/precision_plan.h"
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
    std::string plan = rec.effectivePlan;  // one rule per path, as every plan shown reads
    try {
        plan = PrecisionPlan::parse(plan).normalisedText();
    } catch (const PlanParseError&) {
    }
    std::cout << "plan " << plan << "\n";
    for (const auto& c : rec.components)
        std::cout << "  " << c.name << ": " << formatName(c.format) << " ("
                  << executionName(c.execution) << "), stored " << c.storedDtype
                  << (c.streamed ? ", streamed block by block" : "") << "\n";
    for (const auto& note : rec.notes) std::cout << "note: " << note << "\n";
    std::cout << "image: " << rec.verdict << " (" << rec.verdictExplanation << ")\n";
    if (const auto f = findFirstFailure(rec)) std::cout << f->summary() << "\n";
    if (const std::string note = containedNote(rec); !note.empty()) std::cout << note << "\n";
    std::cout << "wrote " << out << " in " << rec.seconds << " s\n";
}

}  // namespace

int generateImage(const Args& args, RunConfig cfg, const std::string& out,
                  const AfterLoad& afterLoad) {
    const DeviceInfo adviceDevice = adviceDeviceFor(args, cfg.device);
    const std::string gpuMemory = applyGpuMemoryOption(args, cfg.device);  // before the load
    auto pipeline =
        Pipeline::load(cfg.modelDir, cfg.modelFiles, cfg.plan, torch::Device(cfg.device));
    for (const auto& line : pipeline->detected()) std::cerr << line << "\n";
    std::cerr << "memory: " << pipeline->memoryPlan() << "\n";
    std::cerr << loadTimeWeightCheck(cfg.modelDir) << "\n";
    const std::vector<std::string> notes = afterLoad(pipeline->defaults(), cfg);
    StderrProgress progress;
    progress.steps = cfg.steps;
    RunRecord rec = pipeline->run(cfg, &progress);
    if (rec.cancelled) throw Cancelled();  // Ctrl-C: no PNG of a half-done run
    rec.notes.insert(rec.notes.end(), notes.begin(), notes.end());
    if (!gpuMemory.empty()) rec.notes.push_back(gpuMemory);
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
        j["exit_status"] = exitStatusOf(rec);
        if (const std::string note = containedNote(rec); !note.empty()) j["contained"] = note;
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    return exitStatusOf(rec);
}

}  // namespace hs::cli
