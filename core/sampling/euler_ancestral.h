#pragma once
// diffusers EulerAncestralDiscreteScheduler ("Euler a", k-diffusion's sample_euler_ancestral):
// an Euler step down to sigma_down, then fresh noise of size sigma_up, so that the variance lands
// on sigma_{i+1}. The noise comes from the caller (step()'s `noise`) or its generator.
#include "sampling/beta_schedule.h"
#include "sampling/configured_scheduler.h"
#include "sampling/sigma_scheduler.h"

namespace hs {

// prediction_type: epsilon or v_prediction ("sample": ConfigError, diffusers raises
// NotImplementedError in step); timestep_spacing "linspace" by default.
struct EulerAncestralConfig : DiscreteSchedule {
    static constexpr const char* kClass =
        "EulerAncestralDiscreteScheduler";  // diffusers' _class_name
    static EulerAncestralConfig fromJson(const nlohmann::json& j);
};

class EulerAncestralDiscreteScheduler
    : public ConfiguredScheduler<EulerAncestralConfig, SigmaScheduler> {
public:
    explicit EulerAncestralDiscreteScheduler(EulerAncestralConfig c);

    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;  // no mu, no sigmas
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    bool stochastic() const override { return true; }
};

}  // namespace hs
