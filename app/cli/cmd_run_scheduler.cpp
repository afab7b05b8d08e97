// halfscope-cli run-scheduler: runs a scheduler (diffusers' scheduler_config.json) on saved model
// outputs, with the convention of the golden sched_io.safetensors, and writes every schedule,
// scaled input and step result, so that they can be compared with diffusers'.
#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "io/bounded_read.h"
#include "io/safetensors.h"
#include "models/common/config.h"
#include "models/common/named_tensors.h"
#include "numerics/tensor_stats.h"
#include "sampling/ddim.h"
#include "sampling/scheduler.h"
#include "sampling/scheduler_config.h"

namespace hs::cli {
namespace {

constexpr int kMaxCliSteps = 10000;

struct SchedulerFile {
    nlohmann::json config;  // with "_class_name"
    nlohmann::json kwargs;  // a manifest case's set_timesteps_kwargs ({} otherwise)
    std::optional<int> steps;
    std::optional<double> eta;
};

// A diffusers scheduler_config.json, or a golden manifest case {"class", "config",
// "num_inference_steps", "set_timesteps_kwargs"}.
SchedulerFile readSchedulerFile(const std::string& path) {
    std::string text;
    try {
        text = readBoundedFile(path, kMaxConfigBytes, "--config");
    } catch (const FileError& e) {
        throw UsageError(std::string("cannot read ") + e.what());
    }
    const auto j = parseSchedulerConfigText(text, path);
    SchedulerFile f;
    f.kwargs = nlohmann::json::object();
    if (j.is_object() && j.contains("class") && j.contains("config") && j["config"].is_object()) {
        if (!j["class"].is_string()) throw ConfigError(path + ": 'class' must be a string");
        f.config = j["config"];
        f.config["_class_name"] = j["class"];
        if (j.contains("num_inference_steps") && j["num_inference_steps"].is_number_integer())
            f.steps = j["num_inference_steps"].get<int>();
        if (j.contains("set_timesteps_kwargs") && j["set_timesteps_kwargs"].is_object())
            f.kwargs = j["set_timesteps_kwargs"];
        if (j.contains("eta") && j["eta"].is_number()) f.eta = j["eta"].get<double>();
    } else {
        f.config = j;
    }
    return f;
}

std::vector<double> parseSigmas(const std::string& s) {
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        try {
            size_t used = 0;
            out.push_back(std::stod(item, &used));
            if (used != item.size()) throw std::invalid_argument(item);
        } catch (const std::exception&) {
            throw UsageError("--sigmas expects numbers separated by commas, got '" + item + "'");
        }
    }
    if (out.empty()) throw UsageError("--sigmas is empty");
    return out;
}

std::string shapeText(const torch::Tensor& t) {
    std::ostringstream os;
    os << t.sizes();
    return os.str();
}

int runScheduler(const Args& args) {
    args.allowOnly(
        {"config", "steps", "mu", "sigmas", "case", "inputs", "output", "seed", "eta", "json"});
    const std::string configPath = args.require("config");
    const std::string inputPath = args.require("inputs");
    const std::string outputPath = args.require("output");
    const SchedulerFile file = readSchedulerFile(configPath);
    const std::string name =
        args.get("case").value_or(std::filesystem::path(configPath).stem().string());
    if (name.empty() || name.find_first_of(" \t\n") != std::string::npos)
        throw UsageError("--case must be a name without spaces");

    ScheduleOptions o;
    if (auto m = args.get("mu"))
        o.mu = args.getDouble("mu", 0);
    else if (file.kwargs.contains("mu"))
        o.mu = file.kwargs["mu"].get<double>();
    if (auto s = args.get("sigmas"))
        o.sigmas = parseSigmas(*s);
    else if (file.kwargs.contains("sigmas"))
        o.sigmas = file.kwargs["sigmas"].get<std::vector<double>>();
    int steps = 0;
    if (args.has("steps"))
        steps = args.getInt("steps", 0);
    else if (file.steps)
        steps = *file.steps;
    else if (!o.sigmas)
        throw UsageError("missing required option --steps");
    if ((steps < 1 && !(steps == 0 && o.sigmas)) || steps > kMaxCliSteps)
        throw UsageError("--steps must be 1.." + std::to_string(kMaxCliSteps) + ", got " +
                         std::to_string(steps));

    auto scheduler = makeScheduler(file.config);
    const std::optional<double> eta =
        args.has("eta") ? std::optional<double>(args.getDouble("eta", 0)) : file.eta;
    if (eta) {
        auto* ddim = dynamic_cast<DdimScheduler*>(scheduler.get());
        if (!ddim) throw UsageError("--eta applies to DDIMScheduler only");
        ddim->setEta(*eta);
    }
    try {
        scheduler->setTimesteps(steps, o);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const int n = scheduler->numSteps();

    // Every input is checked before the first step: a bad file writes nothing.
    const TensorSet in = TensorSet::open(inputPath);
    if (!in.contains("in.x0"))
        throw InputError("missing input 'in.x0' (the initial latents, e.g. [1, 4, 64, 64])");
    const torch::Tensor x0Raw = in.tensor("in.x0");
    const torch::Tensor x0 =
        checkInput("in.x0", x0Raw, std::vector<int64_t>(size_t(x0Raw.dim()), -1),
                   "a floating tensor of any shape");
    const auto shape = x0.sizes().vec();
    const std::string expected = shapeText(x0) + " (the shape of in.x0)";
    std::vector<torch::Tensor> modelOutputs, noises;
    for (int i = 0; i < n; ++i) {
        const std::string k = "in.model_output." + std::to_string(i);
        if (!in.contains(k))
            throw InputError("missing input '" + k + "': " + std::to_string(n) +
                             " steps need in.model_output.0 .. " + std::to_string(n - 1) + ", " +
                             expected);
        modelOutputs.push_back(checkInput(k, in.tensor(k), shape, expected));
        const std::string nk = "in.noise." + std::to_string(i);
        noises.push_back(in.contains(nk) ? checkInput(nk, in.tensor(nk), shape, expected)
                                         : torch::Tensor());
    }

    auto generator = at::detail::createCPUGenerator(uint64_t(args.getInt("seed", 0)));
    std::vector<std::pair<std::string, torch::Tensor>> out;
    const std::string pre = "out." + name + ".";
    out.emplace_back(pre + "timesteps", scheduler->timesteps());
    // diffusers' DDIM and PNDM have no sigmas
    if (scheduler->className() != "DDIMScheduler" && scheduler->className() != "PNDMScheduler")
        out.emplace_back(pre + "sigmas", scheduler->sigmas());
    torch::Tensor x = x0 * scheduler->initNoiseSigma();
    bool nonFinite = false;
    for (int i = 0; i < n; ++i) {
        const std::string k = std::to_string(i);
        out.emplace_back(pre + "scaled_input." + k, scheduler->scaleModelInput(x, i));
        const auto r = scheduler->step(modelOutputs[size_t(i)], i, x, noises[size_t(i)], generator);
        x = r.prevSample;
        nonFinite |= !computeStats(x).allFinite();
        out.emplace_back(pre + "prev_sample." + k, x);
        out.emplace_back(pre + "pred_original_sample." + k, r.predOriginal);
    }
    writeSafetensors(outputPath, out, {{"halfscope.scheduler", scheduler->className()}});

    nlohmann::json j;
    j["case"] = name;
    j["class"] = scheduler->className();
    j["prediction_type"] = scheduler->predictionType();
    j["steps"] = n;
    j["init_noise_sigma"] = scheduler->initNoiseSigma();
    const auto t = scheduler->timesteps().to(torch::kFloat64).contiguous();
    j["timesteps"] = std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + n);
    j["non_finite"] = nonFinite;
    j["output"] = outputPath;
    if (args.has("json")) {
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        std::cout << scheduler->className() << " (" << scheduler->predictionType() << "), " << n
                  << " steps, init_noise_sigma " << scheduler->initNoiseSigma() << "\n  timesteps "
                  << j["timesteps"].dump() << "\n";
        if (nonFinite) std::cout << "  the samples hold NaN or Inf\n";
        std::cout << "wrote " << outputPath << " (out." << name << ".*)\n";
    }
    return nonFinite ? kExitNonFinite : kExitOk;
}

const Registrar kRunSchedulerCommand(
    {"run-scheduler",
     "run a scheduler on saved model outputs (diffusers' numbers)",
     "usage: halfscope-cli run-scheduler --config scheduler_config.json --steps N\n"
     "           --inputs IN.safetensors --output OUT.safetensors\n"
     "           [--case NAME] [--mu M] [--sigmas a,b,...] [--eta E] [--seed S] [--json]\n\n"
     "Builds the scheduler of a diffusers scheduler_config.json (by its _class_name:\n"
     "EulerDiscreteScheduler, EulerAncestralDiscreteScheduler, DDIMScheduler,\n"
     "DPMSolverMultistepScheduler, PNDMScheduler, FlowMatchEulerDiscreteScheduler), or of a\n"
     "golden manifest case {\"class\", \"config\", \"num_inference_steps\",\n"
     "\"set_timesteps_kwargs\"} (which then gives the default steps, mu and sigmas), calls\n"
     "set_timesteps(N) and runs:\n"
     "  x_0 = in.x0 * init_noise_sigma\n"
     "  out.NAME.scaled_input.i = scale_model_input(x_i, t_i)\n"
     "  out.NAME.prev_sample.i  = x_{i+1} = step(in.model_output.i, t_i, x_i)\n"
     "  out.NAME.pred_original_sample.i = the step's x0 estimate\n"
     "plus out.NAME.timesteps and out.NAME.sigmas (not for DDIM and PNDM, which have none in\n"
     "diffusers). PNDM steps once per model call: N + 1 steps with skip_prk_steps, N + 9\n"
     "without.\n"
     "NAME is --case, or the config file's name without extension.\n\n"
     "  --mu M            flow matching with use_dynamic_shifting\n"
     "  --sigmas a,b,...  a caller-given schedule (FlowMatch: n sigmas; Euler: n + 1, the last\n"
     "                    included; --steps may then be left out)\n"
     "  --eta E           DDIM's eta (0: deterministic)\n"
     "  --seed S          noise seed of stochastic samplers for steps without in.noise.i\n"
     "                    (default 0)\n"
     "Exit code 1 when a sample holds NaN or Inf, 2 for bad options, configs or inputs.\n",
     runScheduler,
     {}});

}  // namespace
}  // namespace hs::cli
