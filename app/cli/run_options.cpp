#include "cli/run_options.h"

#include <cmath>
#include <stdexcept>

#include "cli/cli_report.h"
#include "diagnosis/device_info.h"
#include "runtime/demo_location.h"
#include "runtime/gpu_memory.h"

namespace hs::cli {

const std::vector<std::string>& runOptionNames() {
    static const std::vector<std::string> n = [] {
        std::vector<std::string> names = {"prompt",          "negative", "seed",      "steps",
                                          "guidance",        "width",    "height",    "device",
                                          "probe-level",     "model",    "shift",     "scheduler",
                                          "prediction-type", "plan",     "gpu-memory"};
        for (const auto& row : modelFileSlots()) names.push_back(row.option + 2);  // "--vae"
        return names;
    }();
    return n;
}

std::vector<std::string> withRunOptions(std::vector<std::string> extra) {
    extra.insert(extra.end(), runOptionNames().begin(), runOptionNames().end());
    return extra;
}

std::string applyGpuMemoryOption(const Args& args, const std::string& device) {
    if (args.has("gpu-memory")) {
        const double gb = args.getDouble("gpu-memory", NAN);
        try {
            return capGpuMemory(device, gb, "--gpu-memory " + *args.get("gpu-memory")).note();
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--gpu-memory: ") + e.what());
        }
    }
    if (!wantsAdvice(args) || device.rfind("cuda", 0) != 0) return "";
    const DeviceInfo target = adviceDeviceFor(args, device);
    if (!target.target || target.memoryGB <= 0) return "";
    // The target's size is in GB of 10^9 bytes (a T4's 16 GB are the 15 GiB nvidia-smi shows).
    const char* option = args.has("target")       ? "target"
                         : args.has("advise-for") ? "advise-for"
                                                  : "target-cc";
    const std::string origin = "--" + std::string(option) + " " + *args.get(option) + ": " +
                               std::to_string(int(std::lround(target.memoryGB))) + " GB";
    try {
        return capGpuMemory(device, target.memoryGB * 1e9 / double(1ull << 30), origin).note();
    } catch (const std::invalid_argument& e) {
        return "GPU memory not capped for " + origin + ": " + e.what();
    }
}

std::string outOfMemoryText(const Args& args, const std::string& error) {
    OutOfMemoryContext c = outOfMemoryContextOf(args.get("device").value_or("cpu"));
    c.image = !args.has("inputs");  // run-module runs saved inputs, the others make an image
    c.width = args.getInt("width", 0);
    c.height = args.getInt("height", 0);
    return outOfMemoryMessage(error, c);
}

RunConfig runConfigFrom(const Args& args) {
    RunConfig cfg;
    cfg.prompt = args.get("prompt").value_or(kDefaultPrompt);
    cfg.negativePrompt = args.get("negative").value_or("");
    const std::string seed = args.get("seed").value_or(std::to_string(kDefaultSeed));
    try {
        size_t used = 0;
        cfg.seed = std::stoull(seed, &used);
        if (used != seed.size() || seed.find('-') != std::string::npos) throw std::exception();
    } catch (const std::exception&) {
        throw UsageError("--seed must be a whole number from 0 to 18446744073709551615, got '" +
                         seed + "'");
    }
    cfg.steps = args.getInt("steps", 20);
    cfg.guidance = args.getDouble("guidance", 4.0);
    cfg.width = args.getInt("width", 64);
    cfg.height = args.getInt("height", 64);
    cfg.device = args.get("device").value_or("cpu");
    if (cfg.device != "cpu" && cfg.device.rfind("cuda", 0) != 0)
        throw UsageError("--device must be cpu or cuda:N, got '" + cfg.device + "'");
    if (args.has("shift")) cfg.shift = args.getDouble("shift", 1.0);
    cfg.scheduler = args.get("scheduler").value_or("");
    cfg.predictionType = args.get("prediction-type").value_or("");
    if (!cfg.predictionType.empty() && cfg.predictionType != "epsilon" &&
        cfg.predictionType != "v_prediction" && cfg.predictionType != "sample")
        throw UsageError("--prediction-type must be epsilon, v_prediction or sample, got '" +
                         cfg.predictionType + "'");
    const auto level = parseProbeLevel(args.get("probe-level").value_or("layer"));
    if (!level) throw UsageError("--probe-level must be off, module, layer or op");
    cfg.probeLevel = *level;
    if (auto p = args.get("plan")) cfg.plan = PrecisionPlan::parse(*p);
    cfg.modelDir = args.get("model").value_or(findDemoModel());
    if (cfg.modelDir.empty())
        throw UsageError("the embedded demo model was not found; give --model DIR");
    ModelFiles& f = cfg.modelFiles;
    for (const auto& row : modelFileSlots()) f.*row.path = args.get(row.option + 2).value_or("");
    if (!f.empty() && !args.has("model"))
        throw UsageError(
            "--vae, --text-encoder(-N) and --tokenizer(-N) complete a model: give "
            "it with --model");
    return cfg;
}

void applyModelDefaults(const Args& args, const RunDefaults& d, RunConfig& cfg) {
    if (!args.has("steps")) cfg.steps = d.steps;
    if (!args.has("guidance")) cfg.guidance = d.guidance;
    if (!args.has("width") && d.width) cfg.width = d.width;
    if (!args.has("height") && d.height) cfg.height = d.height;
}

}  // namespace hs::cli
