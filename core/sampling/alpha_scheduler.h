#pragma once
// What diffusers' DDIMScheduler and PNDMScheduler share: int64 timesteps on the training
// alphas_cumprod (no sigmas of their own), a final alpha past the last step (1 with
// set_alpha_to_one, else alphas_cumprod[0]), unscaled model inputs and unit initial noise.
#include <cstdint>
#include <vector>

#include "sampling/beta_schedule.h"
#include "sampling/scheduler.h"

namespace hs {

class AlphaScheduler : public Scheduler {
public:
    int numSteps() const override { return int(m_timesteps.size()); }  // model calls
    torch::Tensor timesteps() const override;  // [calls] float32 of the int64 timesteps
    // Neither class has sigmas in diffusers: [calls + 1] float32 sqrt((1 - acp[t]) / acp[t]) at
    // the timesteps, then at the final alpha (0 with set_alpha_to_one). For plots only.
    torch::Tensor sigmas() const override;
    double initNoiseSigma() const override { return 1.0; }
    // The sample itself (after checking the step index).
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;

protected:
    AlphaScheduler(const BetaSchedule& beta, bool setAlphaToOne);

    torch::Tensor m_alphasCumprod;      // [N] float32
    torch::Tensor m_finalAlphaCumprod;  // [] float32
    std::vector<int64_t> m_timesteps;   // [calls]
    int m_numInferenceSteps = 0;
};

}  // namespace hs
