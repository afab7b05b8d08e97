#pragma once
// diffusers DPMSolverMultistepScheduler (Lu et al. 2022, "DPM-Solver++: Fast Solver for Guided
// Sampling of Diffusion Probabilistic Models"): multistep solvers of order 1-3 in log-SNR time
// lambda, on x0 predictions (dpmsolver++, sde-dpmsolver++) or noise predictions (dpmsolver,
// sde-dpmsolver). DPM++ 2M is dpmsolver++ with solver_order 2; "Karras" adds use_karras_sigmas.
#include <limits>

#include "sampling/beta_schedule.h"
#include "sampling/configured_scheduler.h"

namespace hs {

// prediction_type: epsilon, sample, v_prediction; timestep_spacing "linspace" by default.
struct DpmSolverConfig : DiscreteSchedule {
    static constexpr const char* kClass = "DPMSolverMultistepScheduler";  // diffusers' _class_name
    int solverOrder = 2;                                                  // 1, 2 or 3
    std::string algorithmType = "dpmsolver++";  // dpmsolver++, sde-dpmsolver++, dpmsolver,
                                                // sde-dpmsolver ("deis" reads as dpmsolver++)
    std::string solverType = "midpoint";        // midpoint or heun (logrho/bh1/bh2: midpoint)
    bool lowerOrderFinal = true;
    bool eulerAtFinal = false;
    bool useKarrasSigmas = false;
    bool finalSigmaZero = true;  // final_sigmas_type "zero"; "sigma_min": the first training one
    double lambdaMinClipped = -std::numeric_limits<double>::infinity();

    // thresholding, use_exponential_sigmas, use_beta_sigmas, use_lu_lambdas, use_flow_sigmas,
    // use_dynamic_shifting, variance_type learned/learned_range and prediction_type
    // flow_prediction are not implemented: ConfigError naming them.
    static DpmSolverConfig fromJson(const nlohmann::json& j);
};

class DpmSolverMultistepScheduler : public ConfiguredScheduler<DpmSolverConfig> {
public:
    explicit DpmSolverMultistepScheduler(DpmSolverConfig c);

    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;  // no mu, no sigmas
    int numSteps() const override { return int(m_timesteps.size()); }
    torch::Tensor timesteps() const override;  // [n] float32 of the int64 timesteps
    torch::Tensor sigmas() const override { return m_sigmas; }
    double initNoiseSigma() const override { return 1.0; }
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;
    // Steps must come in order (0, 1, 2, ...): each uses the x0 predictions of the previous
    // ones; step 0 clears them.
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    bool stochastic() const override;

private:
    struct Point {  // _sigma_to_alpha_sigma_t and lambda at sigmas[j], [] float32 each
        torch::Tensor alpha, sigma, lambda;
    };
    Point point(int j) const;
    torch::Tensor convertModelOutput(const torch::Tensor& modelOutput, int i,
                                     const torch::Tensor& sample) const;
    torch::Tensor firstOrder(const torch::Tensor& m, int i, const torch::Tensor& x,
                             const torch::Tensor& noise) const;
    torch::Tensor secondOrder(int i, const torch::Tensor& x, const torch::Tensor& noise) const;
    torch::Tensor thirdOrder(int i, const torch::Tensor& x, const torch::Tensor& noise) const;

    torch::Tensor m_alphasCumprod;              // [N] float32
    std::vector<float> m_trainSigmas;           // [N]
    std::vector<int64_t> m_timesteps;           // [n]
    torch::Tensor m_sigmas;                     // [n + 1] float32
    std::vector<torch::Tensor> m_modelOutputs;  // the last solver_order x0 (or eps) predictions
    int m_lowerOrderNums = 0;
    int m_nextStep = 0;
};

}  // namespace hs
