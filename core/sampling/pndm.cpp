#include "sampling/pndm.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "models/common/config.h"
#include "sampling/scheduler_config.h"
#include "sampling/scheduler_util.h"

namespace hs {

namespace {
constexpr int kPndmOrder = 4;  // pndm_order: four Runge-Kutta stages, four PLMS outputs
}  // namespace

PndmConfig PndmConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, PndmConfig::kClass);
    PndmConfig c;
    c.readSchedule(r, {"epsilon", "v_prediction"}, "leading");
    c.beta.rescaleBetasZeroSnr = false;  // not an argument of PNDMScheduler: from_config drops it
    c.skipPrkSteps = r.getBool("skip_prk_steps", c.skipPrkSteps);
    c.setAlphaToOne = r.getBool("set_alpha_to_one", c.setAlphaToOne);
    return c;
}

PndmScheduler::PndmScheduler(PndmConfig c) : ConfiguredScheduler(c, c.beta, c.setAlphaToOne) {}

void PndmScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    const int n = m_config.beta.numTrainTimesteps;
    sched::checkPlainSteps(PndmConfig::kClass, o, numSteps, n);
    if (!m_config.skipPrkSteps && numSteps < kPndmOrder)
        throw std::invalid_argument(
            std::string(PndmConfig::kClass) +
            ": with 'skip_prk_steps' false the Runge-Kutta warm-up needs at " +
            "least 4 inference steps, got " + std::to_string(numSteps) +
            " (set skip_prk_steps to true for PLMS steps only)");
    // self._timesteps, ascending: DDIM's spacings (the same numpy formulas) in reverse.
    std::vector<int64_t> ts = ddimSpacing(m_config.spacing, n, numSteps, m_config.stepsOffset);
    std::reverse(ts.begin(), ts.end());
    const size_t k = ts.size();
    std::vector<int64_t> out;
    int numPrk = 0;
    if (m_config.skipPrkSteps) {
        // concatenate([ts[:-1], ts[-2:-1], ts[-1:]])[::-1]: the second-to-last entry twice.
        out.assign(ts.begin(), ts.end() - 1);
        if (k >= 2) out.push_back(ts[k - 2]);
        out.push_back(ts[k - 1]);
        std::reverse(out.begin(), out.end());
    } else {
        // PRK (d = N // n): the last four timesteps each with its half step above (t, t + d/2), the
        // top half step dropped, each value repeated (stage 2 and 3 share t + d/2), the ends
        // trimmed: 12 calls, descending. PLMS: ts[:-3] descending.
        const int64_t half = n / numSteps / 2;
        std::vector<int64_t> pairs;
        for (size_t i = k - kPndmOrder; i < k; ++i) {
            pairs.push_back(ts[i]);
            pairs.push_back(ts[i] + half);
        }
        pairs.pop_back();
        std::vector<int64_t> rep;
        for (int64_t v : pairs) rep.insert(rep.end(), {v, v});
        out.assign(rep.begin() + 1, rep.end() - 1);
        std::reverse(out.begin(), out.end());
        numPrk = int(out.size());
        for (size_t i = k - 3; i-- > 0;) out.push_back(ts[i]);
    }
    sched::checkTimestepsInRange(PndmConfig::kClass, out, n, m_config.stepsOffset);
    m_timesteps = std::move(out);
    m_numPrk = numPrk;
    m_numInferenceSteps = numSteps;
    m_counter = 0;
    m_ets.clear();
    m_curSample = torch::Tensor();
    m_curModelOutput = torch::Tensor();
}

torch::Tensor PndmScheduler::alphaAt(int64_t t) const {
    if (t < 0 || t >= m_config.beta.numTrainTimesteps)
        throw std::invalid_argument(std::string(PndmConfig::kClass) + ": timestep " +
                                    std::to_string(t) + " outside the training schedule");
    return m_alphasCumprod[t];
}

torch::Tensor PndmScheduler::prevSample(const torch::Tensor& sample, int64_t t, int64_t prevT,
                                        const torch::Tensor& modelOutput) const {
    auto alphaProdT = alphaAt(t);  // [] float32
    auto alphaProdTPrev = prevT >= 0 ? alphaAt(prevT) : m_finalAlphaCumprod;
    auto betaProdT = 1 - alphaProdT;
    auto betaProdTPrev = 1 - alphaProdTPrev;
    torch::Tensor eps = modelOutput;
    if (m_config.predictionType == "v_prediction")
        eps = alphaProdT.pow(0.5) * modelOutput + betaProdT.pow(0.5) * sample;
    // (alpha_{t-d} - alpha_t) / (sqrt(alpha_t) (sqrt(alpha_{t-d}) + sqrt(alpha_t))) + 1 of eq. (9)
    auto sampleCoeff = (alphaProdTPrev / alphaProdT).pow(0.5);
    // the denominator of the model output in eq. (9)
    auto denom =
        alphaProdT * betaProdTPrev.pow(0.5) + (alphaProdT * betaProdT * alphaProdTPrev).pow(0.5);
    return sampleCoeff * sample - (alphaProdTPrev - alphaProdT) * eps / denom;
}

// step_prk: group g of four calls starts at x = cur_sample, timestep T = prk_timesteps[4g]; the
// calls at T, T - d/2, T - d/2, T - d give k1..k4, each call's result is x moved from T by the
// latest stage (half a step for k1, k2; a full step for k3), the fourth moves it a full step by
// (k1 + 2 k2 + 2 k3 + k4) / 6.
torch::Tensor PndmScheduler::stepPrk(const torch::Tensor& modelOutput, int64_t t,
                                     const torch::Tensor& sample) {
    const int64_t diffToPrev =
        m_counter % 2 ? 0 : m_config.beta.numTrainTimesteps / m_numInferenceSteps / 2;
    const int64_t prevT = t - diffToPrev;
    const int64_t groupT = m_timesteps[size_t(m_counter / 4 * 4)];
    torch::Tensor m = modelOutput;
    switch (m_counter % 4) {
        case 0:
            m_curModelOutput = m_curModelOutput.defined()
                                   ? m_curModelOutput + (1.0 / 6) * modelOutput
                                   : (1.0 / 6) * modelOutput;
            m_ets.push_back(modelOutput);
            m_curSample = sample;
            break;
        case 1:
        case 2:
            m_curModelOutput = m_curModelOutput + (1.0 / 3) * modelOutput;
            break;
        default:
            m = m_curModelOutput + (1.0 / 6) * modelOutput;
            m_curModelOutput = torch::Tensor();
    }
    auto prev = prevSample(m_curSample.defined() ? m_curSample : sample, groupT, prevT, m);
    ++m_counter;
    return prev;
}

// step_plms: Adams-Bashforth combinations of the last 1-4 model outputs (ets). Without PRK steps
// the first two calls are special: call 0 steps from x_t with e0 (and keeps x_t); call 1,
// evaluated at that result, steps again from x_t with (e0 + e1) / 2 and is not kept in ets.
torch::Tensor PndmScheduler::stepPlms(const torch::Tensor& modelOutput, int64_t t,
                                      const torch::Tensor& sample) {
    if (!m_config.skipPrkSteps && m_ets.size() < 3)
        throw std::logic_error(std::string(PndmConfig::kClass) +
                               ": PLMS step before the Runge-Kutta steps");
    const int64_t d = m_config.beta.numTrainTimesteps / m_numInferenceSteps;
    int64_t timestep = t, prevT = t - d;
    if (m_counter != 1) {
        if (m_ets.size() > 3) m_ets.erase(m_ets.begin(), m_ets.end() - 3);
        m_ets.push_back(modelOutput);
    } else {
        prevT = t;
        timestep = t + d;
    }
    torch::Tensor m, x = sample;
    const auto& e = m_ets;
    const size_t k = e.size();
    if (k == 1 && m_counter == 0) {
        m = modelOutput;
        m_curSample = sample;
    } else if (k == 1 && m_counter == 1) {
        m = (modelOutput + e[0]) / 2;
        x = m_curSample;
        m_curSample = torch::Tensor();
    } else if (k == 2) {
        m = (3 * e[1] - e[0]) / 2;
    } else if (k == 3) {
        m = (23 * e[2] - 16 * e[1] + 5 * e[0]) / 12;
    } else {
        m = (1.0 / 24) * (55 * e[3] - 59 * e[2] + 37 * e[1] - 9 * e[0]);
    }
    auto prev = prevSample(x, timestep, prevT, m);
    ++m_counter;
    return prev;
}

SchedulerStep PndmScheduler::step(const torch::Tensor& modelOutput, int i,
                                  const torch::Tensor& sample, const torch::Tensor& noise,
                                  c10::optional<at::Generator> generator) {
    (void)noise;
    (void)generator;
    sched::checkStepIndex(PndmConfig::kClass, i, numSteps());
    sched::checkShapes(PndmConfig::kClass, modelOutput, sample);
    if (i == 0) {
        m_counter = 0;
        m_ets.clear();
        m_curSample = torch::Tensor();
        m_curModelOutput = torch::Tensor();
    } else if (i != m_counter) {
        throw std::invalid_argument(std::string(PndmConfig::kClass) +
                                    ": steps run in order; expected step " +
                                    std::to_string(m_counter) + ", got " + std::to_string(i));
    }
    const int64_t t = m_timesteps[size_t(i)];
    auto prev =
        m_counter < m_numPrk ? stepPrk(modelOutput, t, sample) : stepPlms(modelOutput, t, sample);
    // diffusers' PNDM returns no x0 estimate. For previews: DDIM's x0 from this call's own model
    // output on the sample it was given, at the timestep it was evaluated at.
    auto alphaProdT = alphaAt(t);
    auto betaProdT = 1 - alphaProdT;
    torch::Tensor x0;
    if (m_config.predictionType == "epsilon")
        x0 = (sample - betaProdT.pow(0.5) * modelOutput) / alphaProdT.pow(0.5);
    else
        x0 = alphaProdT.pow(0.5) * sample - betaProdT.pow(0.5) * modelOutput;
    return {prev, x0.to(torch::kFloat32)};
}

}  // namespace hs
