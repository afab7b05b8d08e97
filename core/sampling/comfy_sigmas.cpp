#include "sampling/comfy_sigmas.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sampling/beta_schedule.h"
#include "sampling/scheduler_config.h"

namespace hs {

namespace {

std::vector<float> toFloats(const torch::Tensor& t) {
    auto c = t.to(torch::kFloat32).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// make_beta_schedule of ComfyUI's ldm utilities, float64 [N], for a diffusers training schedule.
torch::Tensor comfyBetas(const BetaSchedule& b) {
    const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
    const int n = b.numTrainTimesteps;
    if (!b.trainedBetas.empty()) return torch::tensor(b.trainedBetas, f64);
    if (b.betaSchedule == "scaled_linear")  // ComfyUI's "linear"
        return torch::linspace(std::pow(b.betaStart, 0.5), std::pow(b.betaEnd, 0.5), n, f64).pow(2);
    if (b.betaSchedule == "linear")  // ComfyUI's "sqrt_linear"
        return torch::linspace(b.betaStart, b.betaEnd, n, f64);
    // squaredcos_cap_v2: betas_for_alpha_bar with max_beta 0.999, in Python floats.
    auto alphaBar = [](double t) {
        const double c = std::cos((t + 0.008) / 1.008 * M_PI / 2);
        return c * c;
    };
    std::vector<double> betas(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        betas[size_t(i)] =
            std::min(1 - alphaBar(double(i + 1) / n) / alphaBar(double(i) / n), 0.999);
    return torch::tensor(betas, f64);
}

// rescale_zero_terminal_snr_sigmas: the last alpha-bar becomes 4.8973451890853435e-08 rather
// than 0, so the largest sigma stays finite (about 4518).
torch::Tensor zeroTerminalSnrSigmas(const torch::Tensor& sigmas) {
    auto alphasBarSqrt = (1 / (sigmas * sigmas + 1)).sqrt();
    auto first = alphasBarSqrt[0].clone(), last = alphasBarSqrt[-1].clone();
    alphasBarSqrt -= last;
    alphasBarSqrt *= first / (first - last);
    auto alphasBar = alphasBarSqrt.pow(2);
    alphasBar[-1].fill_(4.8973451890853435e-08);
    return ((1 - alphasBar) / alphasBar).pow(0.5);
}

// ComfyUI's flow shifts, in float32 as its tensors compute them.
float timeSnrShift(double alpha, float t) {
    if (alpha == 1.0) return t;
    return float(alpha) * t / (1.0f + float(alpha - 1.0) * t);
}

float fluxTimeShift(double mu, float t) {
    const float e = float(std::exp(mu));
    const float den = e + (1.0f / t - 1.0f);
    return (1.0f / den) * e;  // Python's `scalar / tensor` is reciprocal(tensor) * scalar
}

std::vector<double> withZero(const torch::Tensor& sigmas) {
    std::vector<double> out;
    for (float v : toFloats(sigmas)) out.push_back(v);
    out.push_back(0.0);
    return out;
}

// normal_scheduler (sgm = false) and sgm_uniform (sgm = true): evenly spaced model timesteps
// from the largest sigma's to the smallest's, mapped back to sigmas.
std::vector<double> normalSigmas(const ComfyModelSampling& s, int steps, bool sgm) {
    const double start = s.timestep(s.sigmaMax()), end = s.timestep(s.sigmaMin());
    bool appendZero = true;
    torch::Tensor ts;
    if (sgm) {
        ts = torch::linspace(start, end, steps + 1, torch::kFloat32).slice(0, 0, steps);
    } else {
        if (std::abs(s.sigma(end)) <= 1e-5) {  // math.isclose(.., 0, abs_tol=1e-5)
            ++steps;
            appendZero = false;
        }
        ts = torch::linspace(start, end, steps, torch::kFloat32);
    }
    std::vector<double> out;
    for (float t : toFloats(ts)) out.push_back(float(s.sigma(t)));
    if (appendZero) out.push_back(0.0);
    return out;
}

std::vector<double> karrasSigmas(int n, double sigmaMin, double sigmaMax, double rho = 7.0) {
    auto ramp = torch::linspace(0, 1, n, torch::kFloat32);
    const double minInvRho = std::pow(sigmaMin, 1 / rho), maxInvRho = std::pow(sigmaMax, 1 / rho);
    return withZero((ramp * (minInvRho - maxInvRho)).add(maxInvRho).pow(rho));
}

std::vector<double> exponentialSigmas(int n, double sigmaMin, double sigmaMax) {
    return withZero(
        torch::linspace(std::log(sigmaMax), std::log(sigmaMin), n, torch::kFloat32).exp());
}

std::vector<double> simpleSigmas(const std::vector<float>& table, int steps) {
    const double ss = double(table.size()) / steps;
    std::vector<double> out;
    for (int x = 0; x < steps; ++x) out.push_back(table[table.size() - 1 - size_t(x * ss)]);
    out.push_back(0.0);
    return out;
}

std::vector<double> ddimUniformSigmas(const std::vector<float>& table, int steps) {
    const size_t len = table.size();
    std::vector<double> sigs;
    if (std::abs(double(table[1])) <= 1e-5)
        ++steps;
    else
        sigs.push_back(0.0);
    const size_t ss = std::max<size_t>(len / size_t(steps), 1);
    for (size_t x = 1; x < len; x += ss) sigs.push_back(table[x]);
    std::reverse(sigs.begin(), sigs.end());
    return sigs;
}

// beta_scheduler (Lee et al. 2024, arXiv:2407.12173): table indices at the beta(alpha, beta)
// quantiles of 1, 1 - 1/steps, ..., 1/steps, rounded half to even, repeats dropped.
std::vector<double> betaSigmas(const std::vector<float>& table, int steps, double alpha = 0.6,
                               double beta = 0.6) {
    const double total = double(table.size() - 1);
    const double step = 1.0 / steps;  // numpy.linspace(0, 1, steps, endpoint=False)
    std::vector<double> out;
    double last = -1;
    for (int i = 0; i < steps; ++i) {
        const double t =
            std::nearbyint(inverseRegularizedIncompleteBeta(1 - i * step, alpha, beta) * total);
        if (t != last) out.push_back(table[size_t(t)]);
        last = t;
    }
    out.push_back(0.0);
    return out;
}

std::vector<double> linearQuadraticSigmas(double sigmaMax, int steps, double threshold = 0.025) {
    std::vector<double> schedule;
    if (steps == 1) {
        schedule = {1.0, 0.0};
    } else {
        const int linearSteps = steps / 2, quadraticSteps = steps - linearSteps;
        for (int i = 0; i < linearSteps; ++i) schedule.push_back(i * threshold / linearSteps);
        const double diff = linearSteps - threshold * steps;
        const double quadCoef = diff / (linearSteps * std::pow(quadraticSteps, 2));
        const double linCoef = threshold / linearSteps - 2 * diff / std::pow(quadraticSteps, 2);
        const double constant = quadCoef * std::pow(linearSteps, 2);
        for (int i = linearSteps; i < steps; ++i)
            schedule.push_back(quadCoef * std::pow(i, 2) + linCoef * i + constant);
        schedule.push_back(1.0);
        for (double& v : schedule) v = 1.0 - v;
    }
    std::vector<double> out;
    for (double v : schedule) out.push_back(float(v) * float(sigmaMax));
    return out;
}

std::vector<double> klOptimalSigmas(int n, double sigmaMin, double sigmaMax) {
    auto adj = torch::arange(n, torch::kFloat32).div_(n - 1);
    auto s = (adj * std::atan(sigmaMin) + (1 - adj) * std::atan(sigmaMax)).tan_();
    return withZero(s);
}

// The continued fraction of I_x(a, b) (modified Lentz), converging for x < (a + 1) / (a + b + 2).
double betaContinuedFraction(double x, double a, double b) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (std::abs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 1000; ++m) {
        for (int odd = 0; odd < 2; ++odd) {
            const double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                                   : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
            d = 1 + num * d;
            d = 1 / (std::abs(d) < tiny ? tiny : d);
            c = 1 + num / c;
            if (std::abs(c) < tiny) c = tiny;
            const double delta = c * d;
            h *= delta;
            if (odd && std::abs(delta - 1) < 1e-16) return h;
        }
    }
    return h;
}

}  // namespace

ComfyModelSampling ComfyModelSampling::discrete(const nlohmann::json& schedulerConfig,
                                                ComfyPrediction prediction) {
    const std::string cls = schedulerConfig.is_object()
                                ? schedulerConfig.value("_class_name", std::string("scheduler"))
                                : std::string("scheduler");
    const BetaSchedule b = BetaSchedule::read(SchedulerConfigReader(schedulerConfig, cls));
    auto acp = torch::cumprod(1 - comfyBetas(b), 0);  // [N] float64
    auto sigmas = ((1 - acp) / acp).pow(0.5);
    if (b.rescaleBetasZeroSnr) sigmas = zeroTerminalSnrSigmas(sigmas);
    ComfyModelSampling m;
    m.m_kind = Kind::Discrete;
    m.m_prediction = prediction;
    m.m_sigmas = toFloats(sigmas);
    m.m_logSigmas = toFloats(sigmas.log());
    return m;
}

ComfyModelSampling ComfyModelSampling::discreteFlow(double shift, double multiplier) {
    ComfyModelSampling m;
    m.m_kind = Kind::DiscreteFlow;
    m.m_prediction = ComfyPrediction::Const;
    m.m_shift = shift;
    m.m_multiplier = multiplier;
    for (int k = 1; k <= 1000; ++k)
        m.m_sigmas.push_back(float(m.sigma(float(k) / 1000.0f * float(multiplier))));
    return m;
}

ComfyModelSampling ComfyModelSampling::flux(double mu) {
    ComfyModelSampling m;
    m.m_kind = Kind::Flux;
    m.m_prediction = ComfyPrediction::Const;
    m.m_shift = mu;
    for (int k = 1; k <= 10000; ++k) m.m_sigmas.push_back(fluxTimeShift(mu, float(k) / 10000.0f));
    return m;
}

ComfyModelSampling ComfyModelSampling::cosmosRFlow(double sigmaMin, double sigmaMax) {
    ComfyModelSampling m;
    m.m_kind = Kind::CosmosRFlow;
    m.m_prediction = ComfyPrediction::CosmosRFlow;
    m.m_sigmas = toFloats(torch::linspace(std::log(sigmaMin), std::log(sigmaMax), 1000).exp());
    m.m_logSigmas = toFloats(torch::tensor(m.m_sigmas).log());
    return m;
}

double ComfyModelSampling::timestep(double sigma) const {
    switch (m_kind) {
        case Kind::CosmosRFlow:
            return float(sigma) / (float(sigma) + 1.0f);
        case Kind::DiscreteFlow:
            return float(sigma) * float(m_multiplier);
        case Kind::Flux:
            return float(sigma);
        case Kind::Discrete:
            break;
    }
    const float logSigma = std::log(float(sigma));
    size_t best = 0;
    float bestDist = std::numeric_limits<float>::infinity();
    for (size_t k = 0; k < m_logSigmas.size(); ++k) {
        const float dist = std::abs(logSigma - m_logSigmas[k]);
        if (dist < bestDist) bestDist = dist, best = k;  // the first of equals, as argmin
    }
    return double(best);
}

double ComfyModelSampling::sigma(double timestep) const {
    switch (m_kind) {
        case Kind::CosmosRFlow: {
            const float t = float(timestep), max = m_sigmas.back();
            return t >= max / (max + 1.0f) ? max : t / (1.0f - t);
        }
        case Kind::DiscreteFlow:
            return timeSnrShift(m_shift, float(timestep) / float(m_multiplier));
        case Kind::Flux:
            return fluxTimeShift(m_shift, float(timestep));
        case Kind::Discrete:
            break;
    }
    const float t = std::clamp(float(timestep), 0.0f, float(m_sigmas.size() - 1));
    const auto low = size_t(std::floor(t)), high = size_t(std::ceil(t));
    const float w = t - std::trunc(t);
    const float logSigma = (1.0f - w) * m_logSigmas[low] + w * m_logSigmas[high];
    return std::exp(logSigma);
}

double comfyFluxMu(int width, int height, double maxShift, double baseShift) {
    return comfyFluxMuAt(double(width) * height / (8 * 8 * 2 * 2), maxShift, baseShift);
}

double comfyFluxMuAt(double imageTokens, double maxShift, double baseShift) {
    const double x1 = 256, x2 = 4096;
    const double mm = (maxShift - baseShift) / (x2 - x1);
    const double b = baseShift - mm * x1;
    return imageTokens * mm + b;
}

const std::vector<std::string>& comfySchedulerNames() {
    static const std::vector<std::string> names = {"simple",      "sgm_uniform",      "karras",
                                                   "exponential", "ddim_uniform",     "beta",
                                                   "normal",      "linear_quadratic", "kl_optimal"};
    return names;
}

bool isComfyScheduler(const std::string& name) {
    const auto& n = comfySchedulerNames();
    return std::find(n.begin(), n.end(), name) != n.end();
}

std::vector<double> comfySigmas(const ComfyModelSampling& ms, const std::string& scheduler,
                                int steps) {
    if (steps < 1) throw std::invalid_argument("a schedule needs at least one step");
    if (scheduler == "normal") return normalSigmas(ms, steps, false);
    if (scheduler == "sgm_uniform") return normalSigmas(ms, steps, true);
    if (scheduler == "karras") return karrasSigmas(steps, ms.sigmaMin(), ms.sigmaMax());
    if (scheduler == "exponential") return exponentialSigmas(steps, ms.sigmaMin(), ms.sigmaMax());
    if (scheduler == "simple") return simpleSigmas(ms.sigmas(), steps);
    if (scheduler == "ddim_uniform") return ddimUniformSigmas(ms.sigmas(), steps);
    if (scheduler == "beta") return betaSigmas(ms.sigmas(), steps);
    if (scheduler == "linear_quadratic") return linearQuadraticSigmas(ms.sigmaMax(), steps);
    if (scheduler == "kl_optimal") return klOptimalSigmas(steps, ms.sigmaMin(), ms.sigmaMax());
    std::string known;
    for (const auto& n : comfySchedulerNames()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown ComfyUI scheduler '" + scheduler + "' (known: " + known +
                                ")");
}

double regularizedIncompleteBeta(double x, double a, double b) {
    if (!(a > 0) || !(b > 0)) throw std::invalid_argument("the beta function needs a, b > 0");
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return std::exp(logFront) * betaContinuedFraction(x, a, b) / a;
    return 1 - std::exp(logFront) * betaContinuedFraction(1 - x, b, a) / b;
}

double inverseRegularizedIncompleteBeta(double p, double a, double b) {
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument("a quantile needs 0 <= p <= 1");
    if (p == 0) return 0;
    if (p == 1) return 1;
    // A symmetric distribution's median is exactly 1/2 (the beta schedule's middle step rounds
    // 499.5 half to even, which a bisection's last bit could tip the other way).
    if (a == b && p == 0.5) return 0.5;
    if (a == b && p > 0.5) return 1 - inverseRegularizedIncompleteBeta(1 - p, a, b);
    // I_x is increasing in x: bisect until the interval holds no double between its ends, so
    // that tiny quantiles (x ~ p^(1/a)) keep their relative precision too.
    double lo = 0, hi = 1;
    for (int i = 0; i < 2200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        (regularizedIncompleteBeta(mid, a, b) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

}  // namespace hs
