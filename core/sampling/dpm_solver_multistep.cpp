#include "sampling/dpm_solver_multistep.h"

#include <torch/torch.h>

#include <stdexcept>

#include "models/common/config.h"
#include "sampling/numpy_ops.h"
#include "sampling/scheduler_config.h"
#include "sampling/scheduler_util.h"

namespace hs {

namespace {

bool isPlusPlus(const std::string& a) {
    return a == "dpmsolver++" || a == "sde-dpmsolver++";
}
bool isSde(const std::string& a) {
    return a == "sde-dpmsolver" || a == "sde-dpmsolver++";
}

}  // namespace

DpmSolverConfig DpmSolverConfig::fromJson(const nlohmann::json& j) {
    const SchedulerConfigReader r(j, DpmSolverConfig::kClass);
    DpmSolverConfig c;
    c.readSchedule(r, {"epsilon", "sample", "v_prediction", "flow_prediction"}, "linspace");
    c.solverOrder = r.getInt("solver_order", c.solverOrder, 1, 3);
    if (c.predictionType == "flow_prediction")
        r.refuseValue("prediction_type", "flow_prediction", "epsilon, sample, v_prediction");
    c.algorithmType =
        r.getChoice("algorithm_type", c.algorithmType,
                    {"dpmsolver++", "sde-dpmsolver++", "dpmsolver", "sde-dpmsolver", "deis"});
    if (c.algorithmType == "deis") c.algorithmType = "dpmsolver++";  // as diffusers registers it
    c.solverType =
        r.getChoice("solver_type", c.solverType, {"midpoint", "heun", "logrho", "bh1", "bh2"});
    if (c.solverType != "heun") c.solverType = "midpoint";
    c.lowerOrderFinal = r.getBool("lower_order_final", c.lowerOrderFinal);
    c.eulerAtFinal = r.getBool("euler_at_final", c.eulerAtFinal);
    c.useKarrasSigmas = r.getBool("use_karras_sigmas", false);
    for (const char* k : {"thresholding", "use_exponential_sigmas", "use_beta_sigmas",
                          "use_lu_lambdas", "use_flow_sigmas", "use_dynamic_shifting"})
        r.refuseTrue(k);
    if (r.has("variance_type")) {
        const auto v = r.getString("variance_type", "");
        r.refuseValue("variance_type", v, "null");
    }
    c.finalSigmaZero = r.getChoice("final_sigmas_type", "zero", {"zero", "sigma_min"}) == "zero";
    if (!isPlusPlus(c.algorithmType) && c.finalSigmaZero)
        throw ConfigError(std::string(DpmSolverConfig::kClass) +
                          ": 'final_sigmas_type' \"zero\" is not supported "
                          "for 'algorithm_type' \"" +
                          c.algorithmType + "\" (diffusers refuses it too); choose \"sigma_min\"");
    if (c.algorithmType == "sde-dpmsolver" && c.solverOrder == 3)
        throw ConfigError(std::string(DpmSolverConfig::kClass) +
                          ": 'solver_order' 3 is not defined for "
                          "'algorithm_type' \"sde-dpmsolver\"");
    c.lambdaMinClipped = r.getDouble("lambda_min_clipped", c.lambdaMinClipped);
    return c;
}

DpmSolverMultistepScheduler::DpmSolverMultistepScheduler(DpmSolverConfig c)
    : ConfiguredScheduler(c) {
    m_alphasCumprod = m_config.beta.alphasCumprod(/*zeroSnrFloor=*/true);
    m_trainSigmas = trainingSigmas(m_alphasCumprod);
}

bool DpmSolverMultistepScheduler::stochastic() const {
    return isSde(m_config.algorithmType);
}

void DpmSolverMultistepScheduler::setTimesteps(int numSteps, const ScheduleOptions& o) {
    sched::checkPlainSteps(DpmSolverConfig::kClass, o, numSteps);
    const int n = m_config.beta.numTrainTimesteps;
    // clipped_idx = searchsorted(flip(lambda_t), lambda_min_clipped): the training steps whose
    // log-SNR lies below the clip are cut from the end of the schedule.
    auto lambdaT =
        (torch::log(torch::sqrt(m_alphasCumprod)) - torch::log(torch::sqrt(1 - m_alphasCumprod)))
            .flip(0)
            .contiguous();  // [N] ascending
    const float clip = float(m_config.lambdaMinClipped);
    int clipped = 0;
    while (clipped < n && lambdaT.data_ptr<float>()[clipped] < clip) ++clipped;
    const int lastTimestep = n - clipped;

    std::vector<int64_t> ts =
        dpmSpacing(m_config.spacing, n, lastTimestep, numSteps, m_config.stepsOffset);
    std::vector<double> s;
    if (m_config.useKarrasSigmas) {
        const std::vector<float> logSigmas = np::logf(m_trainSigmas);
        s = np::karras(m_trainSigmas.front(), m_trainSigmas.back(), numSteps);
        ts.clear();
        for (double v : s) {
            double t = np::sigmaToT(v, logSigmas);
            if (m_config.beta.betaSchedule != "squaredcos_cap_v2") t = np::round(t);
            ts.push_back(int64_t(t));  // astype(int64): toward zero
        }
    } else {
        sched::checkTimestepsInRange(DpmSolverConfig::kClass, ts, n, m_config.stepsOffset);
        s = np::interpIndex(std::vector<double>(ts.begin(), ts.end()), m_trainSigmas);
    }
    std::vector<float> sig(s.begin(), s.end());
    sig.push_back(m_config.finalSigmaZero ? 0.0f : m_trainSigmas.front());
    m_timesteps = ts;
    m_sigmas = sched::floatTensor(sig);  // [n + 1]
    m_modelOutputs.assign(size_t(m_config.solverOrder), torch::Tensor());
    m_lowerOrderNums = 0;
    m_nextStep = 0;
}

torch::Tensor DpmSolverMultistepScheduler::timesteps() const {
    return torch::tensor(m_timesteps, torch::kInt64).to(torch::kFloat32);  // [n]
}

torch::Tensor DpmSolverMultistepScheduler::scaleModelInput(const torch::Tensor& sample,
                                                           int i) const {
    sched::checkStepIndex(DpmSolverConfig::kClass, i, numSteps());
    return sample;
}

DpmSolverMultistepScheduler::Point DpmSolverMultistepScheduler::point(int j) const {
    auto sigma = m_sigmas[j];                               // []
    auto alpha = (sigma.pow(2) + 1).pow(0.5).reciprocal();  // 1 / sqrt(sigma^2 + 1)
    auto sigmaT = sigma * alpha;
    return {alpha, sigmaT, torch::log(alpha) - torch::log(sigmaT)};
}

torch::Tensor DpmSolverMultistepScheduler::convertModelOutput(const torch::Tensor& mo, int i,
                                                              const torch::Tensor& x) const {
    const auto p = point(i);
    const auto& type = m_config.predictionType;
    if (isPlusPlus(m_config.algorithmType)) {  // x0 prediction
        if (type == "epsilon") return (x - p.sigma * mo) / p.alpha;
        if (type == "sample") return mo;
        return p.alpha * x - p.sigma * mo;  // v_prediction
    }
    // noise prediction
    if (type == "epsilon") return mo;
    if (type == "sample") return (x - p.alpha * mo) / p.sigma;
    return p.alpha * mo + p.sigma * x;  // v_prediction
}

torch::Tensor DpmSolverMultistepScheduler::firstOrder(const torch::Tensor& m, int i,
                                                      const torch::Tensor& x,
                                                      const torch::Tensor& noise) const {
    const auto t = point(i + 1), s = point(i);
    auto h = t.lambda - s.lambda;
    const auto& a = m_config.algorithmType;
    if (a == "dpmsolver++") return (t.sigma / s.sigma) * x - (t.alpha * (torch::exp(-h) - 1.0)) * m;
    if (a == "dpmsolver") return (t.alpha / s.alpha) * x - (t.sigma * (torch::exp(h) - 1.0)) * m;
    if (a == "sde-dpmsolver++")
        return (t.sigma / s.sigma * torch::exp(-h)) * x +
               (t.alpha * (1 - torch::exp(-2.0 * h))) * m +
               t.sigma * torch::sqrt(1.0 - torch::exp(-2 * h)) * noise;
    return (t.alpha / s.alpha) * x - 2.0 * (t.sigma * (torch::exp(h) - 1.0)) * m +
           t.sigma * torch::sqrt(torch::exp(2 * h) - 1.0) * noise;  // sde-dpmsolver
}

torch::Tensor DpmSolverMultistepScheduler::secondOrder(int i, const torch::Tensor& x,
                                                       const torch::Tensor& noise) const {
    const auto t = point(i + 1), s0 = point(i), s1 = point(i - 1);
    const auto& m0 = m_modelOutputs.back();
    const auto& m1 = m_modelOutputs[m_modelOutputs.size() - 2];
    auto h = t.lambda - s0.lambda, h0 = s0.lambda - s1.lambda;
    auto r0 = h0 / h;
    const auto& d0 = m0;
    auto d1 = r0.reciprocal() * (m0 - m1);  // (1.0 / r0) * (m0 - m1)
    const auto& a = m_config.algorithmType;
    const bool mid = m_config.solverType == "midpoint";
    if (a == "dpmsolver++") {
        auto base = (t.sigma / s0.sigma) * x - (t.alpha * (torch::exp(-h) - 1.0)) * d0;
        if (mid) return base - 0.5 * (t.alpha * (torch::exp(-h) - 1.0)) * d1;
        return base + (t.alpha * ((torch::exp(-h) - 1.0) / h + 1.0)) * d1;
    }
    if (a == "dpmsolver") {
        auto base = (t.alpha / s0.alpha) * x - (t.sigma * (torch::exp(h) - 1.0)) * d0;
        if (mid) return base - 0.5 * (t.sigma * (torch::exp(h) - 1.0)) * d1;
        return base - (t.sigma * ((torch::exp(h) - 1.0) / h - 1.0)) * d1;
    }
    if (a == "sde-dpmsolver++") {
        auto base =
            (t.sigma / s0.sigma * torch::exp(-h)) * x + (t.alpha * (1 - torch::exp(-2.0 * h))) * d0;
        auto withD1 =
            mid ? base + 0.5 * (t.alpha * (1 - torch::exp(-2.0 * h))) * d1
                : base + (t.alpha * ((1.0 - torch::exp(-2.0 * h)) / (-2.0 * h) + 1.0)) * d1;
        return withD1 + t.sigma * torch::sqrt(1.0 - torch::exp(-2 * h)) * noise;
    }
    // sde-dpmsolver
    auto base = (t.alpha / s0.alpha) * x - 2.0 * (t.sigma * (torch::exp(h) - 1.0)) * d0;
    auto withD1 = mid ? base - (t.sigma * (torch::exp(h) - 1.0)) * d1
                      : base - 2.0 * (t.sigma * ((torch::exp(h) - 1.0) / h - 1.0)) * d1;
    return withD1 + t.sigma * torch::sqrt(torch::exp(2 * h) - 1.0) * noise;
}

torch::Tensor DpmSolverMultistepScheduler::thirdOrder(int i, const torch::Tensor& x,
                                                      const torch::Tensor& noise) const {
    const auto t = point(i + 1), s0 = point(i), s1 = point(i - 1), s2 = point(i - 2);
    const size_t k = m_modelOutputs.size();
    const auto &m0 = m_modelOutputs[k - 1], &m1 = m_modelOutputs[k - 2],
               &m2 = m_modelOutputs[k - 3];
    auto h = t.lambda - s0.lambda, h0 = s0.lambda - s1.lambda, h1 = s1.lambda - s2.lambda;
    auto r0 = h0 / h, r1 = h1 / h;
    const auto& d0 = m0;
    auto d10 = r0.reciprocal() * (m0 - m1), d11 = r1.reciprocal() * (m1 - m2);
    auto d1 = d10 + (r0 / (r0 + r1)) * (d10 - d11);
    auto d2 = (r0 + r1).reciprocal() * (d10 - d11);
    const auto& a = m_config.algorithmType;
    if (a == "dpmsolver++")
        return (t.sigma / s0.sigma) * x - (t.alpha * (torch::exp(-h) - 1.0)) * d0 +
               (t.alpha * ((torch::exp(-h) - 1.0) / h + 1.0)) * d1 -
               (t.alpha * ((torch::exp(-h) - 1.0 + h) / h.pow(2) - 0.5)) * d2;
    if (a == "dpmsolver")
        return (t.alpha / s0.alpha) * x - (t.sigma * (torch::exp(h) - 1.0)) * d0 -
               (t.sigma * ((torch::exp(h) - 1.0) / h - 1.0)) * d1 -
               (t.sigma * ((torch::exp(h) - 1.0 - h) / h.pow(2) - 0.5)) * d2;
    // sde-dpmsolver++ (sde-dpmsolver has no third order: refused by the config)
    return (t.sigma / s0.sigma * torch::exp(-h)) * x +
           (t.alpha * (1.0 - torch::exp(-2.0 * h))) * d0 +
           (t.alpha * ((1.0 - torch::exp(-2.0 * h)) / (-2.0 * h) + 1.0)) * d1 +
           (t.alpha * ((1.0 - torch::exp(-2.0 * h) - 2.0 * h) / (2.0 * h).pow(2) - 0.5)) * d2 +
           t.sigma * torch::sqrt(1.0 - torch::exp(-2 * h)) * noise;
}

SchedulerStep DpmSolverMultistepScheduler::step(const torch::Tensor& modelOutput, int i,
                                                const torch::Tensor& sample,
                                                const torch::Tensor& noise,
                                                c10::optional<at::Generator> generator) {
    sched::checkStepIndex(DpmSolverConfig::kClass, i, numSteps());
    sched::checkShapes(DpmSolverConfig::kClass, modelOutput, sample);
    if (i == 0) {
        m_modelOutputs.assign(size_t(m_config.solverOrder), torch::Tensor());
        m_lowerOrderNums = 0;
    } else if (i != m_nextStep) {
        throw std::invalid_argument(std::string(DpmSolverConfig::kClass) +
                                    ": steps run in order; expected step " +
                                    std::to_string(m_nextStep) + ", got " + std::to_string(i));
    }
    const int n = numSteps();
    const bool lowerOrderFinal =
        i == n - 1 &&
        (m_config.eulerAtFinal || (m_config.lowerOrderFinal && n < 15) || m_config.finalSigmaZero);
    const bool lowerOrderSecond = i == n - 2 && m_config.lowerOrderFinal && n < 15;

    auto m = convertModelOutput(modelOutput, i, sample);
    for (size_t k = 0; k + 1 < m_modelOutputs.size(); ++k)
        m_modelOutputs[k] = m_modelOutputs[k + 1];
    m_modelOutputs.back() = m;
    auto x = sample.to(torch::kFloat32);
    torch::Tensor eps;
    if (isSde(m_config.algorithmType))
        eps = sched::noiseFor(DpmSolverConfig::kClass, modelOutput, torch::kFloat32, noise,
                              generator);

    const int order = m_config.solverOrder;
    torch::Tensor prev;
    if (order == 1 || m_lowerOrderNums < 1 || lowerOrderFinal)
        prev = firstOrder(m, i, x, eps);
    else if (order == 2 || m_lowerOrderNums < 2 || lowerOrderSecond)
        prev = secondOrder(i, x, eps);
    else
        prev = thirdOrder(i, x, eps);
    if (m_lowerOrderNums < order) ++m_lowerOrderNums;
    m_nextStep = i + 1;

    torch::Tensor x0 = m;
    if (!isPlusPlus(m_config.algorithmType)) {  // m is a noise prediction: x0 for the preview
        const auto p = point(i);
        x0 = (x - p.sigma * m.to(torch::kFloat32)) / p.alpha;
    }
    return {prev.to(m.scalar_type()), x0.to(torch::kFloat32)};
}

}  // namespace hs
