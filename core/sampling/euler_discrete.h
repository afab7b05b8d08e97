#pragma once
// diffusers EulerDiscreteScheduler (Karras et al. 2022, Algorithm 2, with s_churn = 0): sigmas
// interpolated at the spaced timesteps (or Karras sigmas), inputs scaled by 1/sqrt(sigma^2 + 1),
// one Euler step per model call.
#include <optional>

#include "sampling/beta_schedule.h"
#include "sampling/scheduler.h"

namespace hs {

struct EulerDiscreteConfig {
    BetaSchedule beta;
    std::string predictionType = "epsilon";  // epsilon, v_prediction, sample (original_sample)
    bool useKarrasSigmas = false;
    std::optional<double> sigmaMin, sigmaMax;  // Karras range; default: the schedule's ends
    Spacing spacing = Spacing::Linspace;
    bool continuousTimesteps = false;  // timestep_type "continuous" (used with v_prediction)
    int stepsOffset = 0;
    bool finalSigmaZero = true;  // final_sigmas_type "zero"; "sigma_min": the first training one

    // interpolation_type "log_linear", use_exponential_sigmas and use_beta_sigmas are not
    // implemented: ConfigError naming them.
    static EulerDiscreteConfig fromJson(const nlohmann::json& j);
};

class EulerDiscreteScheduler : public Scheduler {
public:
    explicit EulerDiscreteScheduler(EulerDiscreteConfig c);

    std::string className() const override { return "EulerDiscreteScheduler"; }
    // o.sigmas: n + 1 sigmas, the final one included (diffusers' set_timesteps(sigmas=...)); the
    // timesteps are then found by _sigma_to_t. numSteps must then be 0 or n. No mu.
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;
    int numSteps() const override { return m_timesteps.defined() ? int(m_timesteps.size(0)) : 0; }
    torch::Tensor timesteps() const override { return m_timesteps; }
    torch::Tensor sigmas() const override { return m_sigmas; }
    double initNoiseSigma() const override;
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    std::string predictionType() const override { return m_config.predictionType; }
    const EulerDiscreteConfig& config() const { return m_config; }

private:
    void checkStep(int i) const;
    EulerDiscreteConfig m_config;
    torch::Tensor m_alphasCumprod;     // [N] float32
    std::vector<float> m_trainSigmas;  // [N] ((1 - acp) / acp) ** 0.5
    torch::Tensor m_timesteps;         // [n] float32
    torch::Tensor m_sigmas;            // [n + 1] float32
};

}  // namespace hs
