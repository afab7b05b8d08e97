#pragma once
// ComfyUI's noise levels: the model sampling's table of sigmas (what a ComfyUI model knows of its
// training schedule) and the sigma schedules its KSampler picks from it by name (normal, karras,
// exponential, sgm_uniform, simple, ddim_uniform, beta, linear_quadratic, kl_optimal). Numbers
// are computed with the dtypes ComfyUI uses: the discrete training table in float64 then stored
// as float32, the schedules' tensor arithmetic in float32 LibTorch ops (so linspace, pow and exp
// are PyTorch's own kernels), the Python-float parts in double. The beta schedule's quantiles
// (scipy.stats.beta.ppf in ComfyUI) come from a numerical inverse of the regularized incomplete
// beta function, accurate to 1e-10.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace hs {

// What the denoiser's output means, as ComfyUI's model sampling classes name it: EPS (noise),
// V_PREDICTION (v), X0 (the clean sample), CONST (flow matching: velocity, x = (1 - s) x0 + s n),
// COSMOS_RFLOW (Cosmos-Predict2: x = x0 + s n at EDM noise levels, the model fed x (1 - t) at
// t = s / (s + 1); its samplers are the EDM ones, not the rectified-flow variants).
enum class ComfyPrediction { Eps, V, X0, Const, CosmosRFlow };

class ComfyModelSampling {
public:
    // ModelSamplingDiscrete from a diffusers scheduler_config.json's training schedule:
    // num_train_timesteps, beta_start, beta_end, beta_schedule (diffusers' scaled_linear is
    // ComfyUI's "linear", diffusers' linear its "sqrt_linear", squaredcos_cap_v2 the cosine
    // alpha-bar betas), trained_betas, rescale_betas_zero_snr (ComfyUI's zsnr). `prediction`:
    // Eps, V or X0. Throws ConfigError for a malformed schedule.
    static ComfyModelSampling discrete(const nlohmann::json& schedulerConfig,
                                       ComfyPrediction prediction);
    // ModelSamplingDiscreteFlow (SD3, AuraFlow, Qwen-Image ...): sigma(t) = shift t / (1 +
    // (shift - 1) t) at t = k / 1000, k = 1..1000; the model's timestep is sigma * multiplier.
    static ComfyModelSampling discreteFlow(double shift, double multiplier = 1000.0);
    // ModelSamplingFlux: sigma(t) = e^mu / (e^mu + 1/t - 1) at t = k / 10000, k = 1..10000; the
    // timestep is sigma itself.
    static ComfyModelSampling flux(double mu);
    // ModelSamplingCosmosRFlow (a ModelSamplingContinuousEDM): the table is
    // exp(linspace(log sigma_min, log sigma_max, 1000)) in float32; timestep(sigma) =
    // sigma / (sigma + 1), sigma(t) = t / (1 - t), sigma_max from t >= sigma_max / (sigma_max + 1).
    static ComfyModelSampling cosmosRFlow(double sigmaMin, double sigmaMax);

    ComfyPrediction prediction() const { return m_prediction; }
    bool flow() const { return m_prediction == ComfyPrediction::Const; }
    // The table, ascending ([1000] or [10000]), float32 values.
    const std::vector<float>& sigmas() const { return m_sigmas; }
    double sigmaMin() const { return m_sigmas.front(); }
    double sigmaMax() const { return m_sigmas.back(); }
    // The model's time input for `sigma`: the discrete table's nearest index in log sigma (an
    // integer, as a double); sigma * multiplier for discrete flow; sigma for Flux;
    // sigma / (sigma + 1) for Cosmos.
    double timestep(double sigma) const;
    // sigma(timestep): log-linear interpolation of the table (discrete, clamped to its range),
    // the shift formulas for the flow ones. Float32 arithmetic as ComfyUI's tensors.
    double sigma(double timestep) const;

private:
    enum class Kind { Discrete, DiscreteFlow, Flux, CosmosRFlow };
    Kind m_kind = Kind::Discrete;
    ComfyPrediction m_prediction = ComfyPrediction::Eps;
    double m_shift = 1.0, m_multiplier = 1000.0;
    std::vector<float> m_sigmas, m_logSigmas;  // [N] ascending
};

// ModelSamplingFlux's mu for an image size, as ComfyUI's node computes it: a line through
// (256 tokens, base_shift) and (4096 tokens, max_shift), at width * height / 256 tokens.
double comfyFluxMu(int width, int height, double maxShift = 1.15, double baseShift = 0.5);
// The same line at `imageTokens` packed 2x2 latent tokens (width * height / 256 for a VAE that
// downsamples by 8, as ComfyUI's node assumes).
double comfyFluxMuAt(double imageTokens, double maxShift = 1.15, double baseShift = 0.5);

// The schedulers calculate_sigmas knows, in ComfyUI's order.
const std::vector<std::string>& comfySchedulerNames();
bool isComfyScheduler(const std::string& name);

// calculate_sigmas(model_sampling, name, steps): the noise levels from first to last, float32
// values, usually steps + 1 with a final 0 (ddim_uniform may give more, beta fewer when quantiles
// coincide, normal on a table reaching 0 has no extra 0). Throws std::invalid_argument for an
// unknown name (listing the known ones) or steps < 1.
std::vector<double> comfySigmas(const ComfyModelSampling& ms, const std::string& scheduler,
                                int steps);

// I_x(a, b), the regularized incomplete beta function (the beta distribution's CDF), by its
// continued fraction; and its inverse in x for 0 <= p <= 1 (the beta distribution's quantile
// function), by bisection to the last bit of x (well inside 1e-10).
double regularizedIncompleteBeta(double x, double a, double b);
double inverseRegularizedIncompleteBeta(double p, double a, double b);

}  // namespace hs
