#pragma once
// One interface over diffusers' schedulers: EulerDiscreteScheduler,
// EulerAncestralDiscreteScheduler, DDIMScheduler, DPMSolverMultistepScheduler (DPM++ 2M, 2M Karras,
// 2M SDE, 3M) and FlowMatchEulerDiscreteScheduler, each with diffusers' numbers (same float32 /
// float64 steps), made from a scheduler_config.json by its "_class_name".
#include <torch/types.h>

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs {

// What set_timesteps takes besides the number of steps: `mu` for flow matching with dynamic
// shifting; `sigmas`, a caller-given schedule, as the class's set_timesteps(sigmas=...) takes it
// (FlowMatch: n sigmas, a final 0 appended; EulerDiscrete: n + 1 sigmas, the last one included).
// A class whose set_timesteps has no such argument throws std::invalid_argument.
struct ScheduleOptions {
    std::optional<double> mu;
    std::optional<std::vector<double>> sigmas;
};

struct SchedulerStep {
    torch::Tensor prevSample;    // x_{i+1}, in the model output's dtype (as diffusers)
    torch::Tensor predOriginal;  // the x0 estimate of step i (for previews), float32
};

class Scheduler {
public:
    virtual ~Scheduler() = default;
    virtual std::string className() const = 0;  // "EulerDiscreteScheduler"
    // Throws std::invalid_argument (bad number of steps, an option the class does not take) or
    // ConfigError.
    virtual void setTimesteps(int numSteps, const ScheduleOptions& o = {}) = 0;
    virtual int numSteps() const = 0;
    virtual torch::Tensor timesteps() const = 0;  // [n] as diffusers' .timesteps, in float32
    // [n + 1] float32 as diffusers' .sigmas. DDIMScheduler has none in diffusers: it gives
    // sqrt((1 - acp) / acp) at its timesteps and, last, at its final alpha (see ddim.h).
    virtual torch::Tensor sigmas() const = 0;
    virtual double initNoiseSigma() const = 0;
    virtual torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const = 0;
    // Step i, in order from 0 (multistep solvers keep the previous model outputs; step 0 starts
    // afresh). `noise` (same shape as sample) is used by stochastic samplers (ancestral, DDIM
    // eta > 0, SDE-DPM); when undefined they draw from `generator` (null: the default one).
    virtual SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex,
                               const torch::Tensor& sample, const torch::Tensor& noise = {},
                               c10::optional<at::Generator> generator = c10::nullopt) = 0;
    virtual bool stochastic() const { return false; }
    virtual std::string predictionType() const = 0;  // "epsilon", "v_prediction", "sample", "flow"
    double timestep(int i) const;                    // timesteps()[i] as double
};

// By "_class_name" (EulerDiscreteScheduler, EulerAncestralDiscreteScheduler, DDIMScheduler,
// DPMSolverMultistepScheduler, PNDMScheduler, FlowMatchEulerDiscreteScheduler); ConfigError listing
// the supported ones otherwise. Keys named in "_use_default_values" take the class's defaults, and
// keys the class does not take are ignored, as diffusers' from_config does; an option the class
// takes but this port does not implement is a ConfigError naming it.
std::unique_ptr<Scheduler> makeScheduler(const nlohmann::json& config);

// The samplers a user can pick for an SD-style model, as diffusers' from_config(...) switches
// them. ids: "euler", "euler_a", "ddim", "dpmpp_2m", "dpmpp_2m_karras", "pndm".
struct SchedulerChoice {
    std::string id;
    std::string label;
};
const std::vector<SchedulerChoice>& schedulerChoices();

// The model's own scheduler_config.json re-targeted to choice `id`, keeping the training
// schedule (num_train_timesteps, beta_*, prediction_type, timestep_spacing, steps_offset,
// rescale_betas_zero_snr ...) and setting _class_name (+ use_karras_sigmas / algorithm_type /
// solver_order for DPM++); "" returns `base` unchanged. Throws ConfigError for an unknown id, or
// for a flow-matching base (its model predicts velocities these samplers do not take).
nlohmann::json switchScheduler(const nlohmann::json& base, const std::string& id);

}  // namespace hs
