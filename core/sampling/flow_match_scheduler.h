#pragma once
// FlowMatchEulerDiscreteScheduler behind the common Scheduler interface: an adapter of
// FlowMatchEulerScheduler (flow_match.h), which the Flux pipeline uses directly.
#include "sampling/flow_match.h"
#include "sampling/scheduler.h"

namespace hs {

class FlowMatchEulerDiscreteAdapter : public Scheduler {
public:
    explicit FlowMatchEulerDiscreteAdapter(FlowMatchConfig c) : m_s(std::move(c)) {}

    std::string className() const override { return "FlowMatchEulerDiscreteScheduler"; }
    // o.sigmas: n sigmas (FluxPipeline's linspace(1, 1/n, n)), numSteps 0 or n; o.mu: required
    // with use_dynamic_shifting, unused otherwise (as in diffusers).
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;
    int numSteps() const override { return m_s.numSteps(); }
    torch::Tensor timesteps() const override { return m_s.timesteps(); }
    torch::Tensor sigmas() const override { return m_s.sigmas(); }
    double initNoiseSigma() const override { return 1.0; }
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    std::string predictionType() const override { return "flow"; }

    const FlowMatchEulerScheduler& flowMatch() const { return m_s; }

private:
    FlowMatchEulerScheduler m_s;
};

}  // namespace hs
