// halfscope-cli run-module: runs one component (a folder or a single-file checkpoint) on saved
// inputs and writes its outputs.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/run_options.h"
#include "io/safetensors.h"
#include "models/run_component.h"

namespace hs::cli {
namespace {

int runModule(const Args& args) {
    args.allowOnly({"model", "inputs", "output", "precision", "plan", "repeat", "device",
                    "probe-level", "json", "part", "component", "gpu-memory"});
    const std::string modelDir = args.require("model");
    const std::string inputPath = args.require("inputs");
    const std::string outputPath = args.require("output");
    ComponentRunOptions o;
    o.repeat = args.getInt("repeat", 0);
    if (o.repeat < 0) throw UsageError("--repeat must be 0 or more");
    const auto level = parseProbeLevel(args.get("probe-level").value_or("off"));
    if (!level) throw UsageError("--probe-level must be off, module, layer or op");
    o.level = *level;
    const std::string device = args.get("device").value_or("cpu");
    o.device = torch::Device(device);
    const std::string gpuMemory = applyGpuMemoryOption(args, device);  // before the load
    // --component is the documented name, --part the older one.
    o.part = args.get("component").value_or(args.get("part").value_or(""));
    if (args.has("component") && args.has("part") && *args.get("part") != o.part)
        throw UsageError("--component and --part name the same option; give one");
    if (auto p = args.get("precision")) {
        o.precision = parseFormat(*p);
        if (!o.precision)
            throw UsageError("--precision must be fp32, bf16, fp16 or tf32, got '" + *p + "'");
    }
    if (auto p = args.get("plan")) o.rules = PrecisionPlan::parse(*p);

    // With a part named, an io file holding several parts' tensors ("in.unet.sample",
    // "in.vae.z") gives that part's in.<part>.* as in.*, and its outputs are written as
    // out.<part>.*; otherwise the in.* tensors are taken as they are.
    const TensorSet inputSet = TensorSet::open(inputPath);
    const std::string partInputs = o.part.empty() ? "" : "in." + o.part + ".";
    bool prefixed = false;
    for (const auto& name : inputSet.names())
        prefixed |= !partInputs.empty() && name.rfind(partInputs, 0) == 0;
    NamedTensors inputs;
    for (const auto& name : inputSet.names()) {
        if (prefixed && name.rfind(partInputs, 0) == 0)
            inputs["in." + name.substr(partInputs.size())] = inputSet.tensor(name);
        else if (!prefixed && name.rfind("in.", 0) == 0)
            inputs[name] = inputSet.tensor(name);
    }
    ComponentRun r = runComponentFolder(modelDir, inputs, o);
    if (prefixed) {
        NamedTensors renamed;
        for (auto& kv : r.outputs)
            renamed[kv.first.rfind("out.", 0) == 0 ? "out." + o.part + "." + kv.first.substr(4)
                                                   : kv.first] = kv.second;
        r.outputs = std::move(renamed);
    }
    std::vector<std::pair<std::string, torch::Tensor>> list(r.outputs.begin(), r.outputs.end());
    writeSafetensors(outputPath, list, {{"halfscope.plan", r.plan.toString()}});

    bool nonFinite = false;
    nlohmann::json j;
    j["component"] = r.component;
    j["class"] = r.className;
    j["family"] = r.familyName;
    if (!r.description.empty()) j["detected"] = r.description;
    j["plan"] = r.plan.toString();
    j["execution"] = executionName(r.execution);
    for (const auto& kv : r.outputs) {
        const auto s = computeStats(kv.second);
        nonFinite |= !s.allFinite();
        j["outputs"][kv.first] = {{"shape", kv.second.sizes().vec()},
                                  {"min", s.min},
                                  {"max", s.max},
                                  {"nan", s.nan},
                                  {"inf", s.posInf + s.negInf}};
    }
    if (const auto& f = r.firstNonFinite)
        j["first_non_finite"] = {{"point", f->at.name},
                                 {"nan", f->at.stats.nan},
                                 {"pos_inf", f->at.stats.posInf},
                                 {"neg_inf", f->at.stats.negInf}};
    if (!gpuMemory.empty()) j["gpu_memory"] = gpuMemory;
    if (!r.timesMs.empty()) {
        std::vector<double> times = r.timesMs;
        std::sort(times.begin(), times.end());
        j["timing_ms"] = {{"repeat", o.repeat},
                          {"median", times[times.size() / 2]},
                          {"min", times.front()},
                          {"max", times.back()}};
    }
    if (args.has("json")) {
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        if (!r.description.empty()) std::cout << modelDir << ": " << r.description << "\n";
        std::cout << r.className << " as '" << r.component << "', plan " << r.plan.toString()
                  << " (" << j["execution"].get<std::string>() << ")\n";
        for (const auto& kv : j["outputs"].items())
            std::cout << "  " << kv.key() << " " << kv.value()["shape"].dump() << "  min "
                      << kv.value()["min"] << "  max " << kv.value()["max"] << "  nan "
                      << kv.value()["nan"] << "  inf " << kv.value()["inf"] << "\n";
        if (j.contains("first_non_finite"))
            std::cout << "first non-finite value at "
                      << j["first_non_finite"]["point"].get<std::string>() << "\n";
        if (!gpuMemory.empty()) std::cout << "note: " << gpuMemory << "\n";
        if (j.contains("timing_ms"))
            std::cout << "forward time over " << o.repeat << " runs: median "
                      << j["timing_ms"]["median"] << " ms, min " << j["timing_ms"]["min"]
                      << " ms, max " << j["timing_ms"]["max"] << " ms\n";
        std::cout << "wrote " << outputPath << "\n";
    }
    return nonFinite ? kExitNonFinite : kExitOk;
}

// The usage text lists what each registered family takes and gives.
std::string usage() {
    std::string families;
    for (const auto& cls : FamilyRegistry::global().classNames()) {
        const auto f = FamilyRegistry::global().find(cls);
        if (f->classNames.front() != cls) continue;  // one line per family
        families += "  " + f->name + " (";
        for (size_t i = 0; i < f->classNames.size(); ++i)
            families += (i ? ", " : "") + f->classNames[i];
        families += "):\n      " + f->io + "\n";
    }
    return "usage: halfscope-cli run-module --model DIR|FILE --inputs IN.safetensors --output "
           "OUT.safetensors\n"
           "                                [--precision fp32|bf16|fp16|tf32] [--plan RULES] "
           "[--repeat N]\n"
           "                                [--probe-level off|module|layer|op] [--device "
           "cpu|cuda:N]\n"
           "                                [--gpu-memory GB]\n"
           "                                [--component unet|vae|text_encoder|text_encoder_2|"
           "...]\n\n"
           "Runs the component in DIR (its family comes from config.json), or in a single-file\n"
           "checkpoint FILE (flux1-dev.safetensors, ae.safetensors, clip_l.safetensors,\n"
           "t5xxl_fp16.safetensors, an SD 1.x/2.x/SDXL checkpoint: its layout is detected and\n"
           "converted; --component (or --part) picks one part of a file holding several), on the\n"
           "in.* tensors of IN.safetensors and writes the out.* tensors. With --component X, an\n"
           "inputs file holding in.X.* tensors gives those (as in.*) and the outputs are written\n"
           "as out.X.*. The keys each family takes and gives:\n" +
           families +
           "Other keys are ignored. Without --precision the component runs in its stored dtype;\n"
           "--plan adds finer rules (e.g. 'vae.decoder.up_blocks.0=fp32'). --repeat N times N\n"
           "forwards after the first and prints the median, minimum and maximum (on a GPU\n"
           "each forward is timed until the device has finished it). --gpu-memory GB caps what\n"
           "the run may take of a CUDA device's memory (GB of 2^30 bytes; refused on the CPU).\n"
           "Exit code 1 when an output holds NaN or Inf.\n";
}

const Registrar kRunModuleCommand({"run-module",
                                   "run one component (folder or single file) on saved inputs",
                                   usage(),
                                   runModule,
                                   {}});

}  // namespace
}  // namespace hs::cli
