#include "sampling/euler_ancestral.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/common/config.h"
#include "sampling/numpy_ops.h"
#include "sampling/scheduler_config.h"
#include "sampling/scheduler_util.h"

namespace hs {

namespace {
const char* kEulerAClass = "EulerAncestralDiscreteScheduler";
}

EulerAncestralConfig EulerAncestralConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, kEulerAClass);
    EulerAncestralConfig c;
    c.beta = BetaSchedule::read(r);
    c.predictionType =
        r.getChoice("prediction_type", c.predictionType, {"epsilon", "v_prediction", "sample"});
    if (c.predictionType == "sample")
        r.refuseValue("prediction_type", "sample", "epsilon, v_prediction");
    c.spacing = readSpacing(r, "linspace");
    c.stepsOffset = r.getInt("steps_offset", 0, -1000000, 1000000);
    return c;
}

EulerAncestralDiscreteScheduler::EulerAncestralDiscreteScheduler(EulerAncestralConfig c)
    : m_config(std::move(c)) {
    m_trainSigmas = trainingSigmas(m_config.beta.alphasCumprod(/*zeroSnrFloor=*/true));
}

void EulerAncestralDiscreteScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    sched::checkPlainSteps(kEulerAClass, o, numSteps);
    const std::vector<float> ts = floatSpacing(m_config.spacing, m_config.beta.numTrainTimesteps,
                                               numSteps, m_config.stepsOffset);
    std::vector<float> sig;
    for (double v : np::interpIndex(std::vector<double>(ts.begin(), ts.end()), m_trainSigmas))
        sig.push_back(float(v));
    sig.push_back(0.0f);
    m_timesteps = sched::floatTensor(ts);  // [n]
    m_sigmas = sched::floatTensor(sig);    // [n + 1]
}

double EulerAncestralDiscreteScheduler::initNoiseSigma() const {
    // Before set_timesteps diffusers' sigmas are the training ones (and 0).
    const float m = m_sigmas.defined()
                        ? m_sigmas.max().item<float>()
                        : *std::max_element(m_trainSigmas.begin(), m_trainSigmas.end());
    if (m_config.spacing != Spacing::Leading) return m;
    return std::sqrt(m * m + 1.0f);
}

torch::Tensor EulerAncestralDiscreteScheduler::scaleModelInput(const torch::Tensor& sample,
                                                               int i) const {
    sched::checkStepIndex(kEulerAClass, i, numSteps());
    auto sigma = m_sigmas[i];
    return sample / (sigma.pow(2) + 1).pow(0.5);
}

SchedulerStep EulerAncestralDiscreteScheduler::step(const torch::Tensor& modelOutput, int i,
                                                    const torch::Tensor& sample,
                                                    const torch::Tensor& noise,
                                                    c10::optional<at::Generator> generator) {
    sched::checkStepIndex(kEulerAClass, i, numSteps());
    sched::checkShapes(kEulerAClass, modelOutput, sample);
    auto sigma = m_sigmas[i];  // [] float32
    auto x = sample.to(torch::kFloat32);
    torch::Tensor pred;
    if (m_config.predictionType == "epsilon")
        pred = x - sigma * modelOutput;
    else  // v_prediction
        pred = modelOutput * (-sigma / (sigma.pow(2) + 1).pow(0.5)) + (x / (sigma.pow(2) + 1));
    auto sigmaFrom = m_sigmas[i], sigmaTo = m_sigmas[i + 1];
    auto sigmaUp =
        (sigmaTo.pow(2) * (sigmaFrom.pow(2) - sigmaTo.pow(2)) / sigmaFrom.pow(2)).pow(0.5);
    auto sigmaDown = (sigmaTo.pow(2) - sigmaUp.pow(2)).pow(0.5);
    auto derivative = (x - pred) / sigma;
    auto dt = sigmaDown - sigma;
    auto prev = x + derivative * dt;
    auto n =
        sched::noiseFor(kEulerAClass, modelOutput, modelOutput.scalar_type(), noise, generator);
    prev = prev + n * sigmaUp;
    return {prev.to(modelOutput.scalar_type()), pred.to(torch::kFloat32)};
}

}  // namespace hs
