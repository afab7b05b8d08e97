#include "sampling/euler_discrete.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/common/config.h"
#include "sampling/numpy_ops.h"
#include "sampling/scheduler_config.h"
#include "sampling/scheduler_util.h"

namespace hs {

EulerDiscreteConfig EulerDiscreteConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, EulerDiscreteConfig::kClass);
    EulerDiscreteConfig c;
    c.readSchedule(r, {"epsilon", "v_prediction", "sample", "original_sample"}, "linspace");
    if (c.predictionType == "original_sample") c.predictionType = "sample";
    const auto interp = r.getString("interpolation_type", "linear");
    if (interp != "linear") r.refuseValue("interpolation_type", interp, "linear");
    c.useKarrasSigmas = r.getBool("use_karras_sigmas", false);
    r.refuseTrue("use_exponential_sigmas");
    r.refuseTrue("use_beta_sigmas");
    if (r.has("sigma_min")) c.sigmaMin = r.getDouble("sigma_min", 0);
    if (r.has("sigma_max")) c.sigmaMax = r.getDouble("sigma_max", 0);
    c.continuousTimesteps =
        r.getChoice("timestep_type", "discrete", {"discrete", "continuous"}) == "continuous";
    c.finalSigmaZero = r.getChoice("final_sigmas_type", "zero", {"zero", "sigma_min"}) == "zero";
    return c;
}

EulerDiscreteScheduler::EulerDiscreteScheduler(EulerDiscreteConfig c)
    : ConfiguredScheduler(c, trainingSigmas(c.beta.alphasCumprod(/*zeroSnrFloor=*/true)),
                          c.spacing) {}

void EulerDiscreteScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    if (o.mu)
        throw std::invalid_argument(std::string(EulerDiscreteConfig::kClass) +
                                    ": set_timesteps takes no 'mu' (a flow-matching option)");
    const std::vector<float> logSigmas = np::logf(m_trainSigmas);
    std::vector<float> ts, sig;
    if (o.sigmas) {
        // set_timesteps(sigmas=...): float32 sigmas, timesteps by _sigma_to_t in float32.
        const auto& given = *o.sigmas;
        if (given.size() < 2)
            throw std::invalid_argument(std::string(EulerDiscreteConfig::kClass) +
                                        ": 'sigmas' needs n + 1 values (the final one included)");
        const int n = int(given.size()) - 1;
        if (numSteps != 0 && numSteps != n)
            throw std::invalid_argument(
                std::string(EulerDiscreteConfig::kClass) + ": " + std::to_string(n + 1) +
                " sigmas make " + std::to_string(n) + " steps, not " + std::to_string(numSteps));
        sched::checkNumSteps(EulerDiscreteConfig::kClass, n);
        for (double s : given) sig.push_back(float(s));
        for (int i = 0; i < n; ++i) ts.push_back(float(np::sigmaToT(sig[size_t(i)], logSigmas)));
    } else {
        sched::checkNumSteps(EulerDiscreteConfig::kClass, numSteps);
        ts = floatSpacing(m_config.spacing, m_config.beta.numTrainTimesteps, numSteps,
                          m_config.stepsOffset);
        std::vector<double> s = np::interpIndex(std::vector<double>(ts.begin(), ts.end()),
                                                m_trainSigmas);  // float64
        if (m_config.useKarrasSigmas) {
            s = np::karras(m_config.sigmaMin.value_or(s.back()),
                           m_config.sigmaMax.value_or(s.front()), numSteps);
            ts.clear();
            for (double v : s) ts.push_back(float(np::sigmaToT(v, logSigmas)));
        }
        for (double v : s) sig.push_back(float(v));
        sig.push_back(m_config.finalSigmaZero ? 0.0f : m_trainSigmas.front());
    }
    if (m_config.continuousTimesteps && m_config.predictionType == "v_prediction")
        for (size_t i = 0; i < ts.size(); ++i) ts[i] = 0.25f * std::log(sig[i]);
    setSchedule(ts, sig);
}

SchedulerStep EulerDiscreteScheduler::step(const torch::Tensor& modelOutput, int i,
                                           const torch::Tensor& sample, const torch::Tensor&,
                                           c10::optional<at::Generator>) {
    checkStep(i);
    sched::checkShapes(EulerDiscreteConfig::kClass, modelOutput, sample);
    auto x = sample.to(torch::kFloat32);
    auto sigma = m_sigmas[i];  // [] float32; sigma_hat = sigma (s_churn = 0)
    torch::Tensor pred;
    const auto& p = m_config.predictionType;
    if (p == "sample")
        pred = modelOutput;
    else if (p == "epsilon")
        pred = x - sigma * modelOutput;
    else  // v_prediction
        pred = modelOutput * (-sigma / (sigma.pow(2) + 1).pow(0.5)) + (x / (sigma.pow(2) + 1));
    auto derivative = (x - pred) / sigma;
    auto dt = m_sigmas[i + 1] - sigma;
    auto prev = x + derivative * dt;
    return {prev.to(modelOutput.scalar_type()), pred.to(torch::kFloat32)};
}

}  // namespace hs
