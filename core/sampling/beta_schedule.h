#pragma once
// The training noise schedule the discrete-time schedulers share (diffusers' __init__ of
// DDIMScheduler, EulerDiscreteScheduler, ...): betas as float32 torch tensors (linear,
// scaled_linear, squaredcos_cap_v2 or trained_betas), rescale_zero_terminal_snr, and the
// cumulative product of the alphas; plus the timestep spacings of their set_timesteps.
#include <torch/types.h>

#include <string>
#include <vector>

namespace hs {

class SchedulerConfigReader;

struct BetaSchedule {
    int numTrainTimesteps = 1000;
    double betaStart = 0.0001;
    double betaEnd = 0.02;
    std::string betaSchedule = "linear";  // linear, scaled_linear, squaredcos_cap_v2
    std::vector<double> trainedBetas;     // replaces the schedule when not empty
    bool rescaleBetasZeroSnr = false;

    static BetaSchedule read(const SchedulerConfigReader& r);

    torch::Tensor betas() const;  // [N] float32
    // [N] float32 cumprod(1 - betas). `zeroSnrFloor`: with rescale_betas_zero_snr the last value
    // becomes 2^-24 (Euler, Euler ancestral, DPM-Solver do this; DDIM keeps the exact 0).
    torch::Tensor alphasCumprod(bool zeroSnrFloor) const;
};

// ((1 - acp) / acp) ** 0.5 as float32, the training sigmas ([N], ascending in t).
std::vector<float> trainingSigmas(const torch::Tensor& alphasCumprod);

// timestep_spacing of diffusers' set_timesteps.
enum class Spacing { Linspace, Leading, Trailing };
Spacing readSpacing(const SchedulerConfigReader& r, const std::string& fallback);

// What the config of every discrete-time scheduler (DDIM, PNDM, Euler, Euler ancestral,
// DPM-Solver) holds alike; each class's config adds its own options.
struct DiscreteSchedule {
    BetaSchedule beta;
    std::string predictionType = "epsilon";
    Spacing spacing = Spacing::Linspace;
    int stepsOffset = 0;

    // The training schedule (BetaSchedule::read), prediction_type among `predictionTypes`,
    // timestep_spacing (default `spacingFallback`, the class's own) and steps_offset.
    void readSchedule(const SchedulerConfigReader& r,
                      const std::vector<std::string>& predictionTypes,
                      const std::string& spacingFallback);
};

// Euler / Euler ancestral: float32 timesteps, descending.
std::vector<float> floatSpacing(Spacing s, int numTrain, int n, int stepsOffset);
// DDIM: int64 timesteps, descending.
std::vector<int64_t> ddimSpacing(Spacing s, int numTrain, int n, int stepsOffset);
// DPM-Solver: int64 timesteps below `lastTimestep` (num_train_timesteps less the ones cut by
// lambda_min_clipped); n + 1 points with the last dropped for linspace and leading.
std::vector<int64_t> dpmSpacing(Spacing s, int numTrain, int lastTimestep, int n, int stepsOffset);

}  // namespace hs
