#pragma once
// diffusers DDIMScheduler (Song et al. 2020, "Denoising Diffusion Implicit Models", eq. 12):
// x0 and eps from the model output, then x_prev = sqrt(acp_prev) x0 + sqrt(1 - acp_prev -
// sigma_t^2) eps (+ sigma_t noise when eta > 0), sigma_t = eta * sqrt(variance).
#include "sampling/beta_schedule.h"
#include "sampling/scheduler.h"

namespace hs {

struct DdimConfig {
    BetaSchedule beta;
    bool clipSample = true;
    double clipSampleRange = 1.0;
    bool setAlphaToOne = true;
    int stepsOffset = 0;
    std::string predictionType = "epsilon";  // epsilon, sample, v_prediction
    Spacing spacing = Spacing::Leading;

    // thresholding = true (dynamic thresholding) is not implemented: ConfigError.
    static DdimConfig fromJson(const nlohmann::json& j);
};

class DdimScheduler : public Scheduler {
public:
    explicit DdimScheduler(DdimConfig c);

    std::string className() const override { return "DDIMScheduler"; }
    // No mu, no sigmas; numSteps <= num_train_timesteps.
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;
    int numSteps() const override { return int(m_timesteps.size()); }
    torch::Tensor timesteps() const override;  // [n] float32 of the int64 timesteps
    // diffusers' DDIMScheduler has no sigmas: [n + 1] float32 sqrt((1 - acp[t]) / acp[t]) at its
    // timesteps, then at the final alpha (0 with set_alpha_to_one). For plots only.
    torch::Tensor sigmas() const override;
    double initNoiseSigma() const override { return 1.0; }
    torch::Tensor scaleModelInput(const torch::Tensor& sample, int stepIndex) const override;
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    bool stochastic() const override { return m_eta > 0; }
    std::string predictionType() const override { return m_config.predictionType; }

    // step()'s `eta` of diffusers (the pipeline's `eta` argument): 0 is DDIM, 1 is DDPM-like.
    void setEta(double eta);
    double eta() const { return m_eta; }

private:
    torch::Tensor alphaProdPrev(int64_t prevTimestep) const;  // [] float32
    DdimConfig m_config;
    double m_eta = 0;
    torch::Tensor m_alphasCumprod;      // [N] float32
    torch::Tensor m_finalAlphaCumprod;  // [] float32
    std::vector<int64_t> m_timesteps;   // [n]
    int m_numInferenceSteps = 0;
};

}  // namespace hs
