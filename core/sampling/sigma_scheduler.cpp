#include "sampling/sigma_scheduler.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "sampling/scheduler_util.h"

namespace hs {

SigmaScheduler::SigmaScheduler(std::vector<float> trainSigmas, Spacing spacing)
    : m_trainSigmas(std::move(trainSigmas)), m_spacing(spacing) {}

double SigmaScheduler::initNoiseSigma() const {
    // Before set_timesteps diffusers' sigmas are the training ones (and 0).
    const float m = m_sigmas.defined()
                        ? m_sigmas.max().item<float>()
                        : *std::max_element(m_trainSigmas.begin(), m_trainSigmas.end());
    if (m_spacing != Spacing::Leading) return m;
    return std::sqrt(m * m + 1.0f);  // (max_sigma**2 + 1) ** 0.5 in float32
}

void SigmaScheduler::checkStep(int i) const {
    sched::checkStepIndex(className(), i, numSteps());
}

torch::Tensor SigmaScheduler::scaleModelInput(const torch::Tensor& sample, int i) const {
    checkStep(i);
    auto sigma = m_sigmas[i];                     // [] float32
    return sample / (sigma.pow(2) + 1).pow(0.5);  // sample / sqrt(sigma^2 + 1)
}

void SigmaScheduler::setSchedule(const std::vector<float>& timesteps,
                                 const std::vector<float>& sigmas) {
    m_timesteps = sched::floatTensor(timesteps);  // [n]
    m_sigmas = sched::floatTensor(sigmas);        // [n + 1]
}

}  // namespace hs
