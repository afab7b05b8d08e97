#pragma once
// What diffusers' two Euler schedulers (EulerDiscreteScheduler, EulerAncestralDiscreteScheduler)
// share, k-diffusion's parametrisation x_t = x0 + sigma_t eps: a schedule of float32 timesteps
// and sigmas, the training sigmas sqrt((1 - acp) / acp) they are interpolated from, and model
// inputs scaled by 1/sqrt(sigma^2 + 1).
#include <vector>

#include "sampling/beta_schedule.h"
#include "sampling/scheduler.h"

namespace hs {

class SigmaScheduler : public Scheduler {
public:
    int numSteps() const override { return m_timesteps.defined() ? int(m_timesteps.size(0)) : 0; }
    torch::Tensor timesteps() const override { return m_timesteps; }
    torch::Tensor sigmas() const override { return m_sigmas; }
    // The largest sigma (the training ones before setTimesteps), sqrt(max^2 + 1) with "leading".
    double initNoiseSigma() const override;
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;

protected:
    SigmaScheduler(std::vector<float> trainSigmas, Spacing spacing);
    // Throws std::invalid_argument unless a schedule is set and 0 <= i < numSteps().
    void checkStep(int i) const;
    void setSchedule(const std::vector<float>& timesteps, const std::vector<float>& sigmas);

    std::vector<float> m_trainSigmas;  // [N]
    torch::Tensor m_timesteps;         // [n] float32
    torch::Tensor m_sigmas;            // [n + 1] float32

private:
    Spacing m_spacing;
};

}  // namespace hs
