// halfscope-cli run-module: runs one component folder on saved inputs and writes its outputs.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "io/model_folder.h"
#include "io/safetensors.h"
#include "models/clip/clip_run.h"
#include "models/flux/flux_run.h"
#include "models/vae/vae_io.h"

namespace hs::cli {
namespace {

// The family's default component name (its key in model_index.json) and runner.
struct Family {
    std::string component;
    std::function<NamedTensors(const NamedTensors&, ProbeContext&)> run;
};

Family loadFamily(const ComponentFolder& folder, const ProbeContext& probes,
                  const std::string& component) {
    const WeightMap weights = weightMapOf(folder.weights);
    const std::string& c = folder.className;
    if (c == "AutoencoderKL") {
        auto m = std::make_shared<AutoencoderKL>(
            loadAutoencoderKL(folder.config, weights, probes, component));
        return {component, [m](const NamedTensors& in, ProbeContext& p) {
                    return runAutoencoderKL(*m, in, p);
                }};
    }
    if (c == "CLIPTextModel" || c == "CLIPTextModelWithProjection" || c == "CLIPModel") {
        auto m = std::make_shared<ClipTextModel>(
            loadClipText(folder.config, weights, probes, component));
        return {component,
                [m](const NamedTensors& in, ProbeContext& p) { return runClipText(*m, in, p); }};
    }
    if (c == "FluxTransformer2DModel") {
        auto m = std::make_shared<FluxTransformer>(
            loadFluxTransformer(folder.config, weights, probes, component));
        return {component, [m](const NamedTensors& in, ProbeContext& p) {
                    return runFluxTransformer(*m, in, p);
                }};
    }
    throw std::runtime_error(folder.dir + "/config.json: model class '" + c +
                             "' is not supported (supported: AutoencoderKL, CLIPTextModel, "
                             "CLIPTextModelWithProjection, FluxTransformer2DModel)");
}

std::string defaultComponent(const std::string& className) {
    if (className == "AutoencoderKL") return "vae";
    if (className.rfind("CLIP", 0) == 0) return "text_encoder";
    return "transformer";
}

// Most common floating dtype among the stored tensors: the format a component runs in when the
// plan says nothing about it.
Format storedFormat(const TensorSet& set) {
    std::map<Format, int64_t> n;
    for (const auto& name : set.names()) {
        const auto& info = set.info(name);
        if (info.dtype == StDType::F16) n[Format::FP16] += info.numel();
        if (info.dtype == StDType::BF16) n[Format::BF16] += info.numel();
        if (info.dtype == StDType::F32 || info.dtype == StDType::F64)
            n[Format::FP32] += info.numel();
    }
    Format best = Format::FP32;
    int64_t most = -1;
    for (const auto& kv : n)
        if (kv.second > most) best = kv.first, most = kv.second;
    return best;
}

int runModule(const Args& args) {
    args.allowOnly({"model", "inputs", "output", "precision", "plan", "repeat", "device",
                    "probe-level", "json"});
    const std::string modelDir = args.require("model");
    const std::string inputPath = args.require("inputs");
    const std::string outputPath = args.require("output");
    const int repeat = args.getInt("repeat", 0);
    if (repeat < 0) throw UsageError("--repeat must be 0 or more");
    const auto level = parseProbeLevel(args.get("probe-level").value_or("off"));
    if (!level) throw UsageError("--probe-level must be off, module, layer or op");
    const torch::Device device(args.get("device").value_or("cpu"));

    const ComponentFolder folder = openComponent(modelDir);
    const std::string component = defaultComponent(folder.className);
    PrecisionPlan plan;
    plan.add(component, storedFormat(folder.weights));
    if (auto p = args.get("precision")) {
        auto f = parseFormat(*p);
        if (!f) throw UsageError("--precision must be fp32, bf16 or fp16, got '" + *p + "'");
        plan.set(component, *f);
    }
    if (auto p = args.get("plan"))
        for (const auto& r : PrecisionPlan::parse(*p).rules()) plan.set(r.pattern, r.format);

    ProbeContext probes(plan, device, *level);
    Family fam = loadFamily(folder, probes, component);
    const TensorSet inputSet = TensorSet::open(inputPath);
    NamedTensors inputs;
    for (const auto& name : inputSet.names())
        if (name.rfind("in.", 0) == 0) inputs[name] = inputSet.tensor(name);

    torch::NoGradGuard noGrad;
    NamedTensors outputs = fam.run(inputs, probes);
    std::vector<double> times;
    for (int i = 0; i < repeat; ++i) {
        ProbeContext p(plan, device, *level);
        auto t0 = std::chrono::steady_clock::now();
        fam.run(inputs, p);
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    std::vector<std::pair<std::string, torch::Tensor>> list(outputs.begin(), outputs.end());
    writeSafetensors(outputPath, list, {{"halfscope.plan", plan.toString()}});

    bool nonFinite = false;
    nlohmann::json j;
    j["component"] = component;
    j["class"] = folder.className;
    j["plan"] = plan.toString();
    j["execution"] = executionName(probes.executionFor(component));
    for (const auto& kv : outputs) {
        const auto s = computeStats(kv.second);
        nonFinite |= !s.allFinite();
        j["outputs"][kv.first] = {{"shape", kv.second.sizes().vec()},
                                  {"min", s.min},
                                  {"max", s.max},
                                  {"nan", s.nan},
                                  {"inf", s.posInf + s.negInf}};
    }
    if (const auto& f = probes.firstNonFinite())
        j["first_non_finite"] = {{"point", f->at.name},
                                 {"nan", f->at.stats.nan},
                                 {"pos_inf", f->at.stats.posInf},
                                 {"neg_inf", f->at.stats.negInf}};
    if (!times.empty()) {
        std::sort(times.begin(), times.end());
        j["timing_ms"] = {{"repeat", repeat},
                          {"median", times[times.size() / 2]},
                          {"min", times.front()},
                          {"max", times.back()}};
    }
    if (args.has("json")) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << folder.className << " as '" << component << "', plan " << plan.toString()
                  << " (" << j["execution"].get<std::string>() << ")\n";
        for (const auto& kv : j["outputs"].items())
            std::cout << "  " << kv.key() << " " << kv.value()["shape"].dump() << "  min "
                      << kv.value()["min"] << "  max " << kv.value()["max"] << "  nan "
                      << kv.value()["nan"] << "  inf " << kv.value()["inf"] << "\n";
        if (j.contains("first_non_finite"))
            std::cout << "first non-finite value at "
                      << j["first_non_finite"]["point"].get<std::string>() << "\n";
        if (j.contains("timing_ms"))
            std::cout << "forward time over " << repeat << " runs: median "
                      << j["timing_ms"]["median"] << " ms, min " << j["timing_ms"]["min"]
                      << " ms, max " << j["timing_ms"]["max"] << " ms\n";
        std::cout << "wrote " << outputPath << "\n";
    }
    return nonFinite ? kExitNonFinite : kExitOk;
}

const Registrar reg(
    {"run-module",
     "run one component folder on saved inputs",
     "usage: halfscope-cli run-module --model DIR --inputs IN.safetensors --output "
     "OUT.safetensors\n"
     "                                [--precision fp32|bf16|fp16] [--plan RULES] [--repeat N]\n"
     "                                [--probe-level off|module|layer|op] [--device cpu|cuda:N]\n\n"
     "Runs the component in DIR (its family comes from config.json: AutoencoderKL,\n"
     "CLIPTextModel[WithProjection], FluxTransformer2DModel) on the in.* tensors of\n"
     "IN.safetensors and writes the out.* tensors:\n"
     "  AutoencoderKL:  in.z -> out.decode.sample; in.x -> out.encode.mean, out.encode.logvar\n"
     "  CLIP:           in.input_ids -> out.last_hidden_state, out.pooler_output,\n"
     "                  out.text_embeds, out.hidden_states.N\n"
     "  Flux:           in.hidden_states, in.encoder_hidden_states, in.pooled_projections,\n"
     "                  in.timestep, in.guidance, in.img_ids, in.txt_ids -> out.sample\n"
     "Other keys are ignored. Without --precision the component runs in its stored dtype;\n"
     "--plan adds finer rules (e.g. 'vae.decoder.up_blocks.0=fp32'). --repeat N times N\n"
     "forwards after the first and prints the median, minimum and maximum.\n"
     "Exit code 1 when an output holds NaN or Inf.\n",
     runModule,
     {}});

}  // namespace
}  // namespace hs::cli
