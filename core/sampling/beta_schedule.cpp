#include "sampling/beta_schedule.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "models/common/config.h"
#include "sampling/numpy_ops.h"
#include "sampling/scheduler_config.h"

namespace hs {

namespace {

// betas_for_alpha_bar(N, max_beta=0.999, "cosine"): Python floats, then float32.
torch::Tensor cosineBetas(int n) {
    auto alphaBar = [](double t) {
        const double c = std::cos((t + 0.008) / 1.008 * M_PI / 2);
        return c * c;
    };
    std::vector<double> betas(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const double t1 = double(i) / n, t2 = double(i + 1) / n;
        betas[size_t(i)] = std::min(1 - alphaBar(t2) / alphaBar(t1), 0.999);
    }
    return torch::tensor(betas, torch::kFloat64).to(torch::kFloat32);  // [N]
}

// rescale_zero_terminal_snr (Lin et al. 2023, "Common Diffusion Noise Schedules and Sample
// Steps are Flawed", Algorithm 1), in float32 torch ops as diffusers.
torch::Tensor rescaleZeroTerminalSnr(const torch::Tensor& betas) {
    auto alphas = 1.0 - betas;
    auto alphasBarSqrt = torch::cumprod(alphas, 0).sqrt();  // [N]
    auto first = alphasBarSqrt[0].clone(), last = alphasBarSqrt[-1].clone();
    alphasBarSqrt -= last;
    alphasBarSqrt *= first / (first - last);
    auto alphasBar = alphasBarSqrt.pow(2);
    auto ratios = alphasBar.slice(0, 1) / alphasBar.slice(0, 0, -1);  // [N - 1]
    return 1 - torch::cat({alphasBar.slice(0, 0, 1), ratios});
}

}  // namespace

BetaSchedule BetaSchedule::read(const SchedulerConfigReader& r) {
    BetaSchedule b;
    b.numTrainTimesteps = r.getInt("num_train_timesteps", b.numTrainTimesteps, 2, 1000000);
    b.betaStart = r.getDouble("beta_start", b.betaStart);
    b.betaEnd = r.getDouble("beta_end", b.betaEnd);
    b.trainedBetas = r.getDoubleList("trained_betas");
    if (b.trainedBetas.empty())
        b.betaSchedule = r.getChoice("beta_schedule", b.betaSchedule,
                                     {"linear", "scaled_linear", "squaredcos_cap_v2"});
    else if (!r.has("num_train_timesteps"))
        b.numTrainTimesteps = int(b.trainedBetas.size());
    else if (size_t(b.numTrainTimesteps) != b.trainedBetas.size())
        throw ConfigError(
            r.className() + ": 'trained_betas' holds " + std::to_string(b.trainedBetas.size()) +
            " values, 'num_train_timesteps' is " + std::to_string(b.numTrainTimesteps));
    b.rescaleBetasZeroSnr = r.getBool("rescale_betas_zero_snr", false);
    return b;
}

torch::Tensor BetaSchedule::betas() const {
    torch::Tensor betas;
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
    if (!trainedBetas.empty())
        betas = torch::tensor(trainedBetas, torch::kFloat64).to(torch::kFloat32);
    else if (betaSchedule == "linear")
        betas = torch::linspace(betaStart, betaEnd, numTrainTimesteps, f32);
    else if (betaSchedule == "scaled_linear")
        betas = torch::linspace(std::pow(betaStart, 0.5), std::pow(betaEnd, 0.5), numTrainTimesteps,
                                f32)
                    .pow(2);
    else
        betas = cosineBetas(numTrainTimesteps);
    if (rescaleBetasZeroSnr) betas = rescaleZeroTerminalSnr(betas);
    return betas;  // [N]
}

torch::Tensor BetaSchedule::alphasCumprod(bool zeroSnrFloor) const {
    auto acp = torch::cumprod(1.0 - betas(), 0);  // [N] float32
    if (rescaleBetasZeroSnr && zeroSnrFloor) acp[-1] = std::pow(2.0, -24);
    return acp;
}

std::vector<float> trainingSigmas(const torch::Tensor& acp) {
    auto s = ((1 - acp) / acp).pow(0.5).contiguous();  // [N] float32
    return std::vector<float>(s.data_ptr<float>(), s.data_ptr<float>() + s.numel());
}

Spacing readSpacing(const SchedulerConfigReader& r, const std::string& fallback) {
    const auto s = r.getChoice("timestep_spacing", fallback, {"linspace", "leading", "trailing"});
    return s == "linspace" ? Spacing::Linspace
                           : (s == "leading" ? Spacing::Leading : Spacing::Trailing);
}

void DiscreteSchedule::readSchedule(const SchedulerConfigReader& r,
                                    const std::vector<std::string>& predictionTypes,
                                    const std::string& spacingFallback) {
    beta = BetaSchedule::read(r);
    predictionType = r.getChoice("prediction_type", predictionType, predictionTypes);
    spacing = readSpacing(r, spacingFallback);
    stepsOffset = r.getInt("steps_offset", 0, -1000000, 1000000);
}

std::vector<float> floatSpacing(Spacing s, int numTrain, int n, int stepsOffset) {
    std::vector<float> t;
    if (s == Spacing::Linspace) {
        for (double v : np::linspace(0, numTrain - 1, n)) t.push_back(float(v));
    } else if (s == Spacing::Leading) {
        const int64_t ratio = numTrain / n;
        for (int64_t i = 0; i < n; ++i) t.push_back(float(i * ratio) + float(stepsOffset));
    } else {
        for (double v : np::arange(numTrain, 0, -double(numTrain) / n))
            t.push_back(float(np::round(v)) - 1.0f);
        return t;  // already descending
    }
    std::reverse(t.begin(), t.end());
    return t;
}

std::vector<int64_t> ddimSpacing(Spacing s, int numTrain, int n, int stepsOffset) {
    std::vector<int64_t> t;
    if (s == Spacing::Linspace) {
        for (double v : np::linspace(0, numTrain - 1, n)) t.push_back(int64_t(np::round(v)));
    } else if (s == Spacing::Leading) {
        const int64_t ratio = numTrain / n;
        for (int64_t i = 0; i < n; ++i) t.push_back(i * ratio);
    } else {
        for (double v : np::arange(numTrain, 0, -double(numTrain) / n))
            t.push_back(int64_t(np::round(v)) - 1);
        return t;
    }
    std::reverse(t.begin(), t.end());
    if (s == Spacing::Leading)
        for (auto& v : t) v += stepsOffset;
    return t;
}

std::vector<int64_t> dpmSpacing(Spacing s, int numTrain, int lastTimestep, int n, int stepsOffset) {
    std::vector<int64_t> t;
    if (s == Spacing::Trailing) {
        for (double v : np::arange(lastTimestep, 0, -double(numTrain) / n))
            t.push_back(int64_t(np::round(v)) - 1);
        return t;
    }
    if (s == Spacing::Linspace) {
        for (double v : np::linspace(0, lastTimestep - 1, n + 1))
            t.push_back(int64_t(np::round(v)));
    } else {
        const int64_t ratio = lastTimestep / (n + 1);
        for (int64_t i = 0; i <= n; ++i) t.push_back(i * ratio);
    }
    std::reverse(t.begin(), t.end());
    t.pop_back();  // [::-1][:-1]
    if (s == Spacing::Leading)
        for (auto& v : t) v += stepsOffset;
    return t;
}

}  // namespace hs
