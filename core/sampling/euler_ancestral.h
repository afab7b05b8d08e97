#pragma once
// diffusers EulerAncestralDiscreteScheduler ("Euler a", k-diffusion's sample_euler_ancestral):
// an Euler step down to sigma_down, then fresh noise of size sigma_up, so that the variance lands
// on sigma_{i+1}. The noise comes from the caller (step()'s `noise`) or its generator.
#include "sampling/beta_schedule.h"
#include "sampling/scheduler.h"

namespace hs {

struct EulerAncestralConfig {
    BetaSchedule beta;
    std::string predictionType = "epsilon";  // epsilon or v_prediction ("sample": ConfigError,
                                             // diffusers raises NotImplementedError in step)
    Spacing spacing = Spacing::Linspace;
    int stepsOffset = 0;

    static EulerAncestralConfig fromJson(const nlohmann::json& j);
};

class EulerAncestralDiscreteScheduler : public Scheduler {
public:
    explicit EulerAncestralDiscreteScheduler(EulerAncestralConfig c);

    std::string className() const override { return "EulerAncestralDiscreteScheduler"; }
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;  // no mu, no sigmas
    int numSteps() const override { return m_timesteps.defined() ? int(m_timesteps.size(0)) : 0; }
    torch::Tensor timesteps() const override { return m_timesteps; }
    torch::Tensor sigmas() const override { return m_sigmas; }
    double initNoiseSigma() const override;
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    bool stochastic() const override { return true; }
    std::string predictionType() const override { return m_config.predictionType; }

private:
    EulerAncestralConfig m_config;
    std::vector<float> m_trainSigmas;  // [N]
    torch::Tensor m_timesteps;         // [n] float32
    torch::Tensor m_sigmas;            // [n + 1] float32, last 0
};

}  // namespace hs
