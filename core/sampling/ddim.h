#pragma once
// diffusers DDIMScheduler (Song et al. 2020, "Denoising Diffusion Implicit Models", eq. 12):
// x0 and eps from the model output, then x_prev = sqrt(acp_prev) x0 + sqrt(1 - acp_prev -
// sigma_t^2) eps (+ sigma_t noise when eta > 0), sigma_t = eta * sqrt(variance).
#include "sampling/alpha_scheduler.h"
#include "sampling/beta_schedule.h"
#include "sampling/configured_scheduler.h"

namespace hs {

// prediction_type: epsilon, sample, v_prediction; timestep_spacing "leading" by default.
struct DdimConfig : DiscreteSchedule {
    static constexpr const char* kClass = "DDIMScheduler";  // diffusers' _class_name
    bool clipSample = true;
    double clipSampleRange = 1.0;
    bool setAlphaToOne = true;

    // thresholding = true (dynamic thresholding) is not implemented: ConfigError.
    static DdimConfig fromJson(const nlohmann::json& j);
};

class DdimScheduler : public ConfiguredScheduler<DdimConfig, AlphaScheduler> {
public:
    explicit DdimScheduler(DdimConfig c);

    // No mu, no sigmas; numSteps <= num_train_timesteps.
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;
    bool stochastic() const override { return m_eta > 0; }

    // step()'s `eta` of diffusers (the pipeline's `eta` argument): 0 is DDIM, 1 is DDPM-like.
    void setEta(double eta);
    double eta() const { return m_eta; }

private:
    torch::Tensor alphaProdPrev(int64_t prevTimestep) const;  // [] float32
    double m_eta = 0;
};

}  // namespace hs
