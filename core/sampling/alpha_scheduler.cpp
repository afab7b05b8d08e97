#include "sampling/alpha_scheduler.h"

#include <torch/torch.h>

#include "sampling/scheduler_util.h"

namespace hs {

AlphaScheduler::AlphaScheduler(const BetaSchedule& beta, bool setAlphaToOne)
    : m_alphasCumprod(beta.alphasCumprod(/*zeroSnrFloor=*/false)),
      m_finalAlphaCumprod(setAlphaToOne ? torch::tensor(1.0f) : m_alphasCumprod[0].clone()) {
}  // []

torch::Tensor AlphaScheduler::timesteps() const {
    return torch::tensor(m_timesteps, torch::kInt64).to(torch::kFloat32);  // [calls]
}

torch::Tensor AlphaScheduler::sigmas() const {
    return sched::sigmasOfAlphas(m_alphasCumprod, m_timesteps, m_finalAlphaCumprod);
}

torch::Tensor AlphaScheduler::scaleModelInput(const torch::Tensor& sample, int i) const {
    sched::checkStepIndex(className(), i, numSteps());
    return sample;
}

}  // namespace hs
