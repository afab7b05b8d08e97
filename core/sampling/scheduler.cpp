#include "sampling/scheduler.h"

#include <torch/torch.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "models/common/config.h"
#include "sampling/ddim.h"
#include "sampling/dpm_solver_multistep.h"
#include "sampling/euler_ancestral.h"
#include "sampling/euler_discrete.h"
#include "sampling/flow_match_scheduler.h"
#include "sampling/pndm.h"
#include "sampling/scheduler_config.h"

namespace hs {

double Scheduler::timestep(int i) const {
    const auto t = timesteps();
    if (!t.defined() || i < 0 || i >= t.size(0))
        throw std::invalid_argument(className() + ": timestep index " + std::to_string(i) +
                                    " out of range");
    return t[i].item<double>();
}

namespace {

const char* kSupported =
    "EulerDiscreteScheduler, EulerAncestralDiscreteScheduler, DDIMScheduler, "
    "DPMSolverMultistepScheduler, PNDMScheduler, FlowMatchEulerDiscreteScheduler";

std::string classOf(const nlohmann::json& config) {
    if (!config.is_object()) throw ConfigError("scheduler_config.json: must be a JSON object");
    if (!config.contains("_class_name") || !config["_class_name"].is_string())
        throw ConfigError(
            "scheduler_config.json: '_class_name' (a string) is missing; supported: " +
            std::string(kSupported));
    return config["_class_name"].get<std::string>();
}

}  // namespace

std::unique_ptr<Scheduler> makeScheduler(const nlohmann::json& config) {
    const std::string cls = classOf(config);
    if (cls == "EulerDiscreteScheduler")
        return std::make_unique<EulerDiscreteScheduler>(EulerDiscreteConfig::fromJson(config));
    if (cls == "EulerAncestralDiscreteScheduler")
        return std::make_unique<EulerAncestralDiscreteScheduler>(
            EulerAncestralConfig::fromJson(config));
    if (cls == "DDIMScheduler")
        return std::make_unique<DdimScheduler>(DdimConfig::fromJson(config));
    if (cls == "DPMSolverMultistepScheduler")
        return std::make_unique<DpmSolverMultistepScheduler>(DpmSolverConfig::fromJson(config));
    if (cls == "PNDMScheduler")
        return std::make_unique<PndmScheduler>(PndmConfig::fromJson(config));
    if (cls == "FlowMatchEulerDiscreteScheduler") {
        const SchedulerConfigReader r(config, cls);  // drops _use_default_values keys
        return std::make_unique<FlowMatchEulerDiscreteAdapter>(
            FlowMatchConfig::fromJson(r.effective()));
    }
    throw ConfigError("scheduler_config.json: '_class_name' \"" + cls +
                      "\" is not supported; supported: " + std::string(kSupported));
}

const std::vector<SchedulerChoice>& schedulerChoices() {
    static const std::vector<SchedulerChoice> choices = {
        {"euler", "Euler"},
        {"euler_a", "Euler a"},
        {"ddim", "DDIM"},
        {"dpmpp_2m", "DPM++ 2M"},
        {"dpmpp_2m_karras", "DPM++ 2M Karras"},
        {"pndm", "PNDM (PLMS)"},
    };
    return choices;
}

nlohmann::json switchScheduler(const nlohmann::json& base, const std::string& id) {
    if (id.empty()) return base;
    const auto& choices = schedulerChoices();
    if (std::none_of(choices.begin(), choices.end(),
                     [&](const SchedulerChoice& c) { return c.id == id; })) {
        std::string list;
        for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c.id;
        throw ConfigError("unknown sampler '" + id + "' (choices: " + list + ")");
    }
    const std::string from = classOf(base);
    if (from == "FlowMatchEulerDiscreteScheduler")
        throw ConfigError("sampler '" + id + "' cannot replace " + from +
                          ": the model predicts flow-matching velocities");
    // from_config(base, **overrides): the target class reads the keys it takes (the training
    // schedule among them) and ignores the others; the overrides win over the base.
    nlohmann::json overrides;
    if (id == "euler") {
        overrides = {{"_class_name", "EulerDiscreteScheduler"}, {"use_karras_sigmas", false}};
    } else if (id == "euler_a") {
        overrides = {{"_class_name", "EulerAncestralDiscreteScheduler"}};
    } else if (id == "ddim") {
        overrides = {{"_class_name", "DDIMScheduler"}};
    } else if (id == "pndm") {
        // PLMS steps only, as SD 1.x ships it (the class's default would add 12 Runge-Kutta
        // calls; a model's own PNDM config with skip_prk_steps false runs with id "").
        overrides = {{"_class_name", "PNDMScheduler"}, {"skip_prk_steps", true}};
    } else {
        overrides = {{"_class_name", "DPMSolverMultistepScheduler"},
                     {"algorithm_type", "dpmsolver++"},
                     {"solver_order", 2},
                     {"use_karras_sigmas", id == "dpmpp_2m_karras"}};
    }
    if (id == "euler" || id == "dpmpp_2m" || id == "dpmpp_2m_karras")
        for (const char* k : {"use_exponential_sigmas", "use_beta_sigmas", "use_lu_lambdas"})
            if (base.contains(k)) overrides[k] = false;
    nlohmann::json out = base;
    for (const auto& kv : overrides.items()) out[kv.key()] = kv.value();
    if (out.contains("_use_default_values") && out["_use_default_values"].is_array()) {
        nlohmann::json kept = nlohmann::json::array();
        for (const auto& k : out["_use_default_values"])
            if (!k.is_string() || !overrides.contains(k.get<std::string>())) kept.push_back(k);
        out["_use_default_values"] = kept;
    }
    return out;
}

}  // namespace hs
