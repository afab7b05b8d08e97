// halfscope-cli inspect: what a checkpoint holds and which weights fp16 / bf16 cannot store.
#include <iostream>

#include "cli/command.h"
#include "diagnosis/weight_risk.h"
#include "inspect/inspect.h"
#include "inspect/weight_stats.h"
#include "io/terminal_text.h"
#include "numerics/format.h"

namespace hs::cli {

namespace {

int runInspect(const Args& args) {
    args.allowOnly({"json", "variant"});
    if (args.positional().size() != 1)
        throw UsageError(
            "expected one PATH (a .safetensors file, a component or a pipeline folder)");
    const std::string path = args.positional()[0];
    const std::string variant = args.get("variant").value_or("");
    InspectReport r = inspectPath(path, variant);
    // The fp16 check from weights; a component that cannot be read is a note there (and an
    // error of the inspection above).
    const WeightRiskReport risk = predictFromWeights(path, variant);
    const torch::Device cpu(torch::kCPU);
    if (args.has("json")) {
        auto j = toJson(r);
        for (auto f : {Format::FP32, Format::BF16, Format::FP16})
            j["cpu_execution"][formatName(f)] = executionName(executionFor(f, cpu));
        j["fp16_from_weights"] = toJson(risk, 5);
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        std::cout << formatReport(r) << "\n"
                  << formatWeightRisk(risk, 5) << "\nOn this CPU: fp32 native; "
                  << cpuBf16Description()
                  << ";\n  fp16 emulated (fp32 compute, every op output rounded to fp16).\n";
    }
    // A pipeline with an unreadable component, or a file whose layout does not convert, is
    // still reported in full, then fails.
    if (!r.singleFile.error.empty()) {
        std::cerr << "halfscope-cli inspect: " << printableText(r.singleFile.error) << "\n";
        return kExitUsage;
    }
    if (r.hasErrors()) {
        std::cerr << "halfscope-cli inspect: some components could not be read\n";
        return kExitUsage;
    }
    return kExitOk;
}

const Registrar kInspectCommand({
    "inspect",
    "list a checkpoint's tensors and check its weights against fp16/bf16 range",
    "usage: halfscope-cli inspect PATH [--json] [--variant V]\n"
    "\n"
    "PATH is a .safetensors file (or a sharded *.safetensors.index.json), a component folder\n"
    "(config.json + weights, e.g. vae/) or a pipeline folder (model_index.json).\n"
    "\n"
    "Prints, per component: class, tensor count, dtypes, parameters per top-level module, and\n"
    "how many stored weights would overflow to Inf, become 0, or become subnormal if stored in\n"
    "fp16 or bf16 (counted exactly as a cast rounds). Then the fp16 check from weights: per\n"
    "component \"fp16 safe\", \"at risk\" or \"will overflow\" and the 5 riskiest modules with\n"
    "their reasons (a weight past 65504 is certain; the rest estimates each layer's output\n"
    "peak from its weights' RMS and fan-in, see diagnosis/weight_risk.h).\n"
    "Pickle checkpoints (.bin, .ckpt) are never opened: loading pickle can execute arbitrary\n"
    "code.\n"
    "\n"
    "For a single .safetensors file it also says which single-file layouts it holds\n"
    "(Black Forest Labs' flux1-dev, an LDM VAE such as ae.safetensors, an SD checkpoint's\n"
    "parts, ComfyUI's clip_l / t5xxl files) and the component each converts to, with what\n"
    "had to be assumed because the file does not store it.\n"
    "\n"
    "The last lines say how each format runs on this CPU (see --cpu-bf16).\n"
    "\n"
    "  --json        machine-readable output\n"
    "  --variant V   open the V weights variant (e.g. fp16 for *.fp16.safetensors)\n"
    "\n"
    "exit status: 0 success, 2 usage or input error (also when a pipeline component cannot\n"
    "be read, or a file's single-file layout does not convert; the rest is still reported)\n",
    runInspect,
    {"json"},
});

}  // namespace

}  // namespace hs::cli
