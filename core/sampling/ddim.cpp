#include "sampling/ddim.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "models/common/config.h"
#include "sampling/scheduler_config.h"
#include "sampling/scheduler_util.h"

namespace hs {

DdimConfig DdimConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, DdimConfig::kClass);
    DdimConfig c;
    c.readSchedule(r, {"epsilon", "sample", "v_prediction"}, "leading");
    c.clipSample = r.getBool("clip_sample", c.clipSample);
    c.clipSampleRange = r.getDouble("clip_sample_range", c.clipSampleRange);
    c.setAlphaToOne = r.getBool("set_alpha_to_one", c.setAlphaToOne);
    r.refuseTrue("thresholding");
    return c;
}

DdimScheduler::DdimScheduler(DdimConfig c) : ConfiguredScheduler(c, c.beta, c.setAlphaToOne) {}

void DdimScheduler::setEta(double eta) {
    if (!(eta >= 0) || !std::isfinite(eta))
        throw std::invalid_argument("DDIMScheduler: eta must be a number >= 0");
    m_eta = eta;
}

void DdimScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    const int n = m_config.beta.numTrainTimesteps;
    sched::checkPlainSteps(DdimConfig::kClass, o, numSteps, n);
    m_numInferenceSteps = numSteps;
    m_timesteps = ddimSpacing(m_config.spacing, n, numSteps, m_config.stepsOffset);
    sched::checkTimestepsInRange(DdimConfig::kClass, m_timesteps, n, m_config.stepsOffset);
}

torch::Tensor DdimScheduler::alphaProdPrev(int64_t prev) const {
    return prev >= 0 ? m_alphasCumprod[prev] : m_finalAlphaCumprod;
}

SchedulerStep DdimScheduler::step(const torch::Tensor& modelOutput, int i,
                                  const torch::Tensor& sample, const torch::Tensor& noise,
                                  c10::optional<at::Generator> generator) {
    sched::checkStepIndex(DdimConfig::kClass, i, numSteps());
    sched::checkShapes(DdimConfig::kClass, modelOutput, sample);
    const int64_t t = m_timesteps[size_t(i)];
    const int64_t prevT = t - m_config.beta.numTrainTimesteps / m_numInferenceSteps;
    auto alphaProdT = m_alphasCumprod[t];  // [] float32
    auto alphaProdTPrev = alphaProdPrev(prevT);
    auto betaProdT = 1 - alphaProdT;
    torch::Tensor pred, eps;
    const auto& p = m_config.predictionType;
    if (p == "epsilon") {
        pred = (sample - betaProdT.pow(0.5) * modelOutput) / alphaProdT.pow(0.5);
        eps = modelOutput;
    } else if (p == "sample") {
        pred = modelOutput;
        eps = (sample - alphaProdT.pow(0.5) * pred) / betaProdT.pow(0.5);
    } else {  // v_prediction
        pred = alphaProdT.pow(0.5) * sample - betaProdT.pow(0.5) * modelOutput;
        eps = alphaProdT.pow(0.5) * modelOutput + betaProdT.pow(0.5) * sample;
    }
    if (m_config.clipSample) pred = pred.clamp(-m_config.clipSampleRange, m_config.clipSampleRange);
    // _get_variance
    auto betaProdTPrev = 1 - alphaProdTPrev;
    auto variance = (betaProdTPrev / betaProdT) * (1 - alphaProdT / alphaProdTPrev);
    auto stdDevT = m_eta * variance.pow(0.5);
    auto direction = (1 - alphaProdTPrev - stdDevT.pow(2)).pow(0.5) * eps;
    auto prev = alphaProdTPrev.pow(0.5) * pred + direction;
    if (m_eta > 0)
        prev = prev + stdDevT * sched::noiseFor(DdimConfig::kClass, modelOutput,
                                                modelOutput.scalar_type(), noise, generator);
    return {prev, pred.to(torch::kFloat32)};
}

}  // namespace hs
