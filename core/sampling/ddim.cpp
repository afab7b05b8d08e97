#include "sampling/ddim.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>

#include "models/common/config.h"
#include "sampling/scheduler_config.h"
#include "sampling/scheduler_util.h"

namespace hs {

namespace {
const char* kDdimClass = "DDIMScheduler";
}

DdimConfig DdimConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, kDdimClass);
    DdimConfig c;
    c.beta = BetaSchedule::read(r);
    c.clipSample = r.getBool("clip_sample", c.clipSample);
    c.clipSampleRange = r.getDouble("clip_sample_range", c.clipSampleRange);
    c.setAlphaToOne = r.getBool("set_alpha_to_one", c.setAlphaToOne);
    c.stepsOffset = r.getInt("steps_offset", 0, -1000000, 1000000);
    c.predictionType =
        r.getChoice("prediction_type", c.predictionType, {"epsilon", "sample", "v_prediction"});
    r.refuseTrue("thresholding");
    c.spacing = readSpacing(r, "leading");
    return c;
}

DdimScheduler::DdimScheduler(DdimConfig c) : m_config(std::move(c)) {
    m_alphasCumprod = m_config.beta.alphasCumprod(/*zeroSnrFloor=*/false);
    m_finalAlphaCumprod =
        m_config.setAlphaToOne ? torch::tensor(1.0f) : m_alphasCumprod[0].clone();  // []
}

void DdimScheduler::setEta(double eta) {
    if (!(eta >= 0) || !std::isfinite(eta))
        throw std::invalid_argument("DDIMScheduler: eta must be a number >= 0");
    m_eta = eta;
}

void DdimScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    const int n = m_config.beta.numTrainTimesteps;
    sched::checkPlainSteps(kDdimClass, o, numSteps, n);
    m_numInferenceSteps = numSteps;
    m_timesteps = ddimSpacing(m_config.spacing, n, numSteps, m_config.stepsOffset);
    sched::checkTimestepsInRange(kDdimClass, m_timesteps, n, m_config.stepsOffset);
}

torch::Tensor DdimScheduler::timesteps() const {
    return torch::tensor(m_timesteps, torch::kInt64).to(torch::kFloat32);  // [n]
}

torch::Tensor DdimScheduler::alphaProdPrev(int64_t prev) const {
    return prev >= 0 ? m_alphasCumprod[prev] : m_finalAlphaCumprod;
}

torch::Tensor DdimScheduler::sigmas() const {
    return sched::sigmasOfAlphas(m_alphasCumprod, m_timesteps, m_finalAlphaCumprod);
}

torch::Tensor DdimScheduler::scaleModelInput(const torch::Tensor& sample, int i) const {
    sched::checkStepIndex(kDdimClass, i, numSteps());
    return sample;
}

SchedulerStep DdimScheduler::step(const torch::Tensor& modelOutput, int i,
                                  const torch::Tensor& sample, const torch::Tensor& noise,
                                  c10::optional<at::Generator> generator) {
    sched::checkStepIndex(kDdimClass, i, numSteps());
    sched::checkShapes(kDdimClass, modelOutput, sample);
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
        prev = prev + stdDevT * sched::noiseFor(kDdimClass, modelOutput, modelOutput.scalar_type(),
                                                noise, generator);
    return {prev, pred.to(torch::kFloat32)};
}

}  // namespace hs
