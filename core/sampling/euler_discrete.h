#pragma once
// diffusers EulerDiscreteScheduler (Karras et al. 2022, Algorithm 2, with s_churn = 0): sigmas
// interpolated at the spaced timesteps (or Karras sigmas), inputs scaled by 1/sqrt(sigma^2 + 1),
// one Euler step per model call.
#include <optional>

#include "sampling/beta_schedule.h"
#include "sampling/configured_scheduler.h"
#include "sampling/sigma_scheduler.h"

namespace hs {

// prediction_type: epsilon, v_prediction, sample (original_sample); timestep_spacing
// "linspace" by default.
struct EulerDiscreteConfig : DiscreteSchedule {
    static constexpr const char* kClass = "EulerDiscreteScheduler";  // diffusers' _class_name
    bool useKarrasSigmas = false;
    std::optional<double> sigmaMin, sigmaMax;  // Karras range; default: the schedule's ends
    bool continuousTimesteps = false;  // timestep_type "continuous" (used with v_prediction)
    bool finalSigmaZero = true;  // final_sigmas_type "zero"; "sigma_min": the first training one

    // interpolation_type "log_linear", use_exponential_sigmas and use_beta_sigmas are not
    // implemented: ConfigError naming them.
    static EulerDiscreteConfig fromJson(const nlohmann::json& j);
};

class EulerDiscreteScheduler : public ConfiguredScheduler<EulerDiscreteConfig, SigmaScheduler> {
public:
    explicit EulerDiscreteScheduler(EulerDiscreteConfig c);

    // o.sigmas: n + 1 sigmas, the final one included (diffusers' set_timesteps(sigmas=...)); the
    // timesteps are then found by _sigma_to_t. numSteps must then be 0 or n. No mu.
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
};

}  // namespace hs
