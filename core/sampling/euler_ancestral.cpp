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

EulerAncestralConfig EulerAncestralConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, EulerAncestralConfig::kClass);
    EulerAncestralConfig c;
    c.readSchedule(r, {"epsilon", "v_prediction", "sample"}, "linspace");
    if (c.predictionType == "sample")
        r.refuseValue("prediction_type", "sample", "epsilon, v_prediction");
    return c;
}

EulerAncestralDiscreteScheduler::EulerAncestralDiscreteScheduler(EulerAncestralConfig c)
    : ConfiguredScheduler(c, trainingSigmas(c.beta.alphasCumprod(/*zeroSnrFloor=*/true)),
                          c.spacing) {}

void EulerAncestralDiscreteScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    sched::checkPlainSteps(EulerAncestralConfig::kClass, o, numSteps);
    const std::vector<float> ts = floatSpacing(m_config.spacing, m_config.beta.numTrainTimesteps,
                                               numSteps, m_config.stepsOffset);
    std::vector<float> sig;
    for (double v : np::interpIndex(std::vector<double>(ts.begin(), ts.end()), m_trainSigmas))
        sig.push_back(float(v));
    sig.push_back(0.0f);
    setSchedule(ts, sig);
}

SchedulerStep EulerAncestralDiscreteScheduler::step(const torch::Tensor& modelOutput, int i,
                                                    const torch::Tensor& sample,
                                                    const torch::Tensor& noise,
                                                    c10::optional<at::Generator> generator) {
    checkStep(i);
    sched::checkShapes(EulerAncestralConfig::kClass, modelOutput, sample);
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
    auto n = sched::noiseFor(EulerAncestralConfig::kClass, modelOutput, modelOutput.scalar_type(),
                             noise, generator);
    prev = prev + n * sigmaUp;
    return {prev.to(modelOutput.scalar_type()), pred.to(torch::kFloat32)};
}

}  // namespace hs
