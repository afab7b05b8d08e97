// halfscope-cli generate: one text-to-image run with probes, on the demo model by default.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "io/image_io.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"

namespace hs::cli {
namespace {

struct StderrProgress : RunObserver {
    int steps = 0;
    void onStage(const std::string& s) override { std::fprintf(stderr, "%s...\n", s.c_str()); }
    void onStep(const StepRecord& s, const std::vector<ProbeRecord>&) override {
        std::fprintf(stderr, "step %d/%d  sigma %.4f  latent |max| %.4g  NaN %lld  Inf %lld  %.0f ms\n",
                     s.step + 1, steps, s.sigma, s.latent.absMax, (long long)s.latent.nan,
                     (long long)(s.latent.posInf + s.latent.negInf), s.seconds * 1000);
    }
    void onFirstNonFinite(const FirstNonFinite& f) override {
        std::fprintf(stderr, "first non-finite value: %s at step %d\n", f.at.name.c_str(), f.at.step);
    }
};

nlohmann::json statsJson(const TensorStats& s) {
    return {{"min", s.min},   {"max", s.max},       {"abs_max", s.absMax},
            {"mean", s.mean}, {"std", s.std},       {"nan", s.nan},
            {"pos_inf", s.posInf}, {"neg_inf", s.negInf}, {"over_fp16", s.overFp16}};
}

int runGenerate(const Args& args) {
    args.allowOnly({"prompt", "negative", "seed", "steps", "guidance", "plan", "model", "out",
                    "width", "height", "probe-level", "device", "threads", "json"});
    RunConfig cfg;
    cfg.prompt = args.require("prompt");
    cfg.negativePrompt = args.get("negative").value_or("");
    cfg.seed = uint64_t(args.getInt("seed", 0));
    cfg.steps = args.getInt("steps", 20);
    cfg.guidance = args.getDouble("guidance", 4.0);
    cfg.width = args.getInt("width", 64);
    cfg.height = args.getInt("height", 64);
    cfg.device = args.get("device").value_or("cpu");
    const auto level = parseProbeLevel(args.get("probe-level").value_or("layer"));
    if (!level) throw UsageError("--probe-level must be off, module, layer or op");
    cfg.probeLevel = *level;
    if (auto p = args.get("plan")) cfg.plan = PrecisionPlan::parse(*p);
    cfg.modelDir = args.get("model").value_or(findDemoModel());
    if (cfg.modelDir.empty())
        throw std::runtime_error("the embedded demo model was not found; give --model DIR");
    const std::string out = args.require("out");

    auto pipeline = Pipeline::load(cfg.modelDir, cfg.plan, torch::Device(cfg.device));
    StderrProgress progress;
    progress.steps = cfg.steps;
    const RunRecord rec = pipeline->run(cfg, &progress);
    if (rec.savedImage) {
        Image img;
        img.width = rec.savedImage->width;
        img.height = rec.savedImage->height;
        img.channels = 3;
        img.pixels = rec.savedImage->rgb;
        writePng(out, img);
    }
    const bool failed = rec.verdict != "ok" && rec.verdict != "flat";
    nlohmann::json j;
    j["model"] = cfg.modelDir;
    j["plan"] = rec.effectivePlan;
    for (const auto& c : rec.components)
        j["components"][c.name] = {{"class", c.className}, {"stored_dtype", c.storedDtype},
                                   {"parameters", c.parameters}, {"format", formatName(c.format)},
                                   {"execution", executionName(c.execution)}};
    j["verdict"] = rec.verdict;
    j["verdict_explanation"] = rec.verdictExplanation;
    j["image"] = statsJson(rec.image);
    j["seconds"] = rec.seconds;
    if (rec.firstNonFinite)
        j["first_non_finite"] = {{"point", rec.firstNonFinite->at.name},
                                 {"step", rec.firstNonFinite->at.step},
                                 {"stats", statsJson(rec.firstNonFinite->at.stats)}};
    j["output"] = out;
    if (args.has("json")) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "plan " << rec.effectivePlan << "\n";
        for (const auto& c : rec.components)
            std::cout << "  " << c.name << ": " << formatName(c.format) << " ("
                      << executionName(c.execution) << "), stored " << c.storedDtype << "\n";
        std::cout << "image: " << rec.verdict << " (" << rec.verdictExplanation << ")\n";
        if (rec.firstNonFinite)
            std::cout << "first non-finite value at " << rec.firstNonFinite->at.name << ", step "
                      << rec.firstNonFinite->at.step << "\n";
        std::cout << "wrote " << out << " in " << rec.seconds << " s\n";
    }
    return failed ? kExitNonFinite : kExitOk;
}

const Registrar reg(
    {"generate", "one text-to-image run with probes (demo model by default)",
     "usage: halfscope-cli generate --prompt TEXT --out IMG.png [--negative TEXT] [--seed N]\n"
     "                              [--steps N] [--guidance G] [--plan RULES] [--model DIR]\n"
     "                              [--width W] [--height H] [--probe-level off|module|layer|op]\n"
     "                              [--device cpu|cuda:N] [--json]\n\n"
     "Runs the pipeline in DIR (the embedded demo model when --model is not given). Without\n"
     "--plan each component runs in its stored dtype; rules name components as\n"
     "model_index.json does, e.g. --plan 'transformer=fp16' or 'vae=fp16,vae.decoder.up_blocks.0=bf16'.\n"
     "The PNG is written as a pipeline saves it (NaN pixels black). Progress on stderr.\n"
     "Exit code 1 when the image holds NaN/Inf or is black.\n",
     runGenerate,
     {}});

}  // namespace
}  // namespace hs::cli
