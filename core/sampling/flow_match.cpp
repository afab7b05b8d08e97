#include "sampling/flow_match.h"

#include <torch/torch.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "models/common/config.h"

namespace hs {

namespace {

// numpy.linspace(start, stop, n) in float64: start + i * step, the last value set to stop.
std::vector<double> linspace(double start, double stop, int n) {
    std::vector<double> v(size_t(std::max(n, 0)));
    if (n == 1) v[0] = start;
    if (n <= 1) return v;
    const double step = (stop - start) / double(n - 1);
    for (int i = 0; i < n; ++i) v[size_t(i)] = double(i) * step + start;
    v.back() = stop;
    return v;
}

}  // namespace

FlowMatchConfig FlowMatchConfig::fromJson(const nlohmann::json& j) {
    FlowMatchConfig c;
    c.numTrainTimesteps = cfgInt(j, "num_train_timesteps", c.numTrainTimesteps, 1, 1000000);
    c.shift = cfgDouble(j, "shift", c.shift);
    c.useDynamicShifting = cfgBool(j, "use_dynamic_shifting", c.useDynamicShifting);
    c.baseShift = cfgDouble(j, "base_shift", c.baseShift);
    c.maxShift = cfgDouble(j, "max_shift", c.maxShift);
    c.baseImageSeqLen = cfgInt(j, "base_image_seq_len", c.baseImageSeqLen, 1, kMaxPositions * 16);
    c.maxImageSeqLen = cfgInt(j, "max_image_seq_len", c.maxImageSeqLen, 1, kMaxPositions * 16);
    c.timeShiftType = cfgString(j, "time_shift_type", c.timeShiftType);
    if (j.contains("shift_terminal") && !j["shift_terminal"].is_null())
        c.shiftTerminal = cfgDouble(j, "shift_terminal", 0.0);
    if (c.timeShiftType != "exponential" && c.timeShiftType != "linear")
        throw ConfigError(
            "scheduler_config.json: 'time_shift_type' must be \"exponential\" or "
            "\"linear\", got \"" +
            c.timeShiftType + "\"");
    if (c.numTrainTimesteps < 1)
        throw ConfigError("scheduler_config.json: 'num_train_timesteps' must be >= 1");
    if (c.baseImageSeqLen == c.maxImageSeqLen)
        throw ConfigError(
            "scheduler_config.json: 'base_image_seq_len' must differ from "
            "'max_image_seq_len'");
    for (const char* k : {"use_karras_sigmas", "use_exponential_sigmas", "use_beta_sigmas",
                          "invert_sigmas", "stochastic_sampling"}) {
        if (cfgBool(j, k, false))
            throw ConfigError(std::string("scheduler_config.json: '") + k +
                              "' = true is not supported by this FlowMatch scheduler");
    }
    return c;
}

FlowMatchEulerScheduler::FlowMatchEulerScheduler(FlowMatchConfig c) : m_config(std::move(c)) {
    // __init__: sigmas = (N..1) / N in float32, shifted in float32 unless dynamic shifting.
    const float n = float(m_config.numTrainTimesteps);
    auto initSigma = [&](float t) {
        float s = t / n;
        if (!m_config.useDynamicShifting) {
            const float shift = float(m_config.shift), shiftM1 = float(m_config.shift - 1.0);
            s = (shift * s) / (1.0f + shiftM1 * s);
        }
        return double(s);
    };
    m_sigmaMax = initSigma(n);
    m_sigmaMin = initSigma(1.0f);
}

template <typename T>
std::vector<T> FlowMatchEulerScheduler::shiftSigmas(std::vector<T> s,
                                                    std::optional<double> mu) const {
    if (m_config.useDynamicShifting) {
        if (!mu)
            throw std::invalid_argument("FlowMatch: 'mu' is required with use_dynamic_shifting");
        // time_shift(mu, 1.0, t): exponential exp(mu) / (exp(mu) + (1/t - 1)), linear with mu.
        const T e = m_config.timeShiftType == "linear" ? T(*mu) : T(std::exp(*mu));
        for (T& t : s) t = e / (e + (T(1) / t - T(1)));  // (1/t - 1) ** 1.0
    } else {
        const T shift = T(m_config.shift), shiftM1 = T(m_config.shift - 1.0);
        for (T& t : s) t = (shift * t) / (T(1) + shiftM1 * t);
    }
    if (m_config.shiftTerminal && *m_config.shiftTerminal != 0.0 && !s.empty()) {
        // stretch_shift_to_terminal
        const T scale = (T(1) - s.back()) / (T(1) - T(*m_config.shiftTerminal));
        for (T& t : s) t = T(1) - (T(1) - t) / scale;
    }
    return s;
}

void FlowMatchEulerScheduler::setTimesteps(int numSteps, std::optional<double> mu) {
    if (numSteps < 1) throw std::invalid_argument("FlowMatch: the number of steps must be >= 1");
    const double n = double(m_config.numTrainTimesteps);
    std::vector<double> s = linspace(m_sigmaMax * n, m_sigmaMin * n, numSteps);  // timesteps
    for (double& t : s) t /= n;                                                  // sigmas
    s = shiftSigmas(std::move(s), mu);
    finish(std::vector<float>(s.begin(), s.end()));
}

void FlowMatchEulerScheduler::setSigmas(const std::vector<double>& sigmas,
                                        std::optional<double> mu) {
    if (sigmas.empty()) throw std::invalid_argument("FlowMatch: empty sigma schedule");
    std::vector<float> s(sigmas.begin(), sigmas.end());  // np.array(sigmas).astype(np.float32)
    finish(shiftSigmas(std::move(s), mu));
}

void FlowMatchEulerScheduler::finish(const std::vector<float>& s) {
    const int64_t n = int64_t(s.size());
    auto sig = torch::from_blob(const_cast<float*>(s.data()), {n}, torch::kFloat32).clone();  // [n]
    m_timesteps = sig * m_config.numTrainTimesteps;                    // [n] float32, as diffusers
    m_sigmas = torch::cat({sig, torch::zeros({1}, torch::kFloat32)});  // [n + 1]
}

double FlowMatchEulerScheduler::sigma(int i) const {
    TORCH_CHECK(numSteps() > 0 && i >= 0 && i <= numSteps(), "sigma index ", i, " out of range");
    return double(m_sigmas.data_ptr<float>()[i]);
}

double FlowMatchEulerScheduler::timestep(int i) const {
    TORCH_CHECK(i >= 0 && i < numSteps(), "timestep index ", i, " out of range");
    return double(m_timesteps.data_ptr<float>()[i]);
}

double FlowMatchEulerScheduler::modelTime(int i) const {
    return double(float(timestep(i)) / float(m_config.numTrainTimesteps));
}

torch::Tensor FlowMatchEulerScheduler::denoised(const torch::Tensor& v, int i,
                                                const torch::Tensor& x) const {
    return x.to(torch::kFloat32) - sigma(i) * v.to(torch::kFloat32);
}

torch::Tensor FlowMatchEulerScheduler::step(const torch::Tensor& modelOutput, int i,
                                            const torch::Tensor& sample) const {
    if (i < 0 || i >= numSteps())
        throw std::invalid_argument("FlowMatch: step index " + std::to_string(i) +
                                    " out of range for " + std::to_string(numSteps()) + " steps");
    // `sigma_next - sigma` is a 0-dim float32 tensor in diffusers: keep the same promotion.
    auto dt = (m_sigmas[i + 1] - m_sigmas[i]).to(modelOutput.device());
    auto prev = sample.to(torch::kFloat32) + dt * modelOutput;
    return prev.to(modelOutput.scalar_type());
}

double calculateShift(int64_t imageSeqLen, int64_t baseSeqLen, int64_t maxSeqLen, double baseShift,
                      double maxShift) {
    const double m = (maxShift - baseShift) / double(maxSeqLen - baseSeqLen);
    const double b = baseShift - m * double(baseSeqLen);
    return double(imageSeqLen) * m + b;
}

double calculateShift(int64_t imageSeqLen, const FlowMatchConfig& c) {
    return calculateShift(imageSeqLen, c.baseImageSeqLen, c.maxImageSeqLen, c.baseShift,
                          c.maxShift);
}

std::vector<double> fluxPipelineSigmas(int numSteps) {
    return linspace(1.0, 1.0 / double(numSteps), numSteps);
}

}  // namespace hs
