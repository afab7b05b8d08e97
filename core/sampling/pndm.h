#pragma once
// diffusers PNDMScheduler (Liu et al. 2022, "Pseudo Numerical Methods for Diffusion Models on
// Manifolds"): the transfer x_t -> x_{t-d} of eq. (9) driven by a linear multistep (PLMS)
// combination of the last four model outputs, after a warm-up of Runge-Kutta (PRK) steps or,
// with skip_prk_steps (SD 1.x's scheduler_config.json), after crowsonkb's two-call start: one
// step to t - d, then again from x_t with the mean of both outputs. As in diffusers, every model
// call is a step: set_timesteps(n) gives n + 1 timesteps with skip_prk_steps, n + 9 without.
#include "sampling/alpha_scheduler.h"
#include "sampling/beta_schedule.h"
#include "sampling/configured_scheduler.h"

namespace hs {

// prediction_type: epsilon, v_prediction; timestep_spacing "leading" by default;
// rescale_betas_zero_snr is not an option of this class: ignored.
struct PndmConfig : DiscreteSchedule {
    static constexpr const char* kClass = "PNDMScheduler";  // diffusers' _class_name
    bool skipPrkSteps = false;
    bool setAlphaToOne = false;

    static PndmConfig fromJson(const nlohmann::json& j);
};

class PndmScheduler : public ConfiguredScheduler<PndmConfig, AlphaScheduler> {
public:
    explicit PndmScheduler(PndmConfig c);

    // No mu, no sigmas; numSteps <= num_train_timesteps, and >= 4 without skip_prk_steps (the
    // four Runge-Kutta steps need four timesteps; diffusers fails there on a numpy broadcast).
    // The timesteps: the PRK ones, then the PLMS ones.
    void setTimesteps(int numSteps, const ScheduleOptions& o = {}) override;
    // Steps run in order (0, 1, 2, ...): each uses the earlier model outputs (diffusers' ets,
    // cur_sample, counter); step 0 starts afresh.
    SchedulerStep step(const torch::Tensor& modelOutput, int stepIndex, const torch::Tensor& sample,
                       const torch::Tensor& noise = {},
                       c10::optional<at::Generator> generator = c10::nullopt) override;

private:
    torch::Tensor alphaAt(int64_t t) const;  // [] float32 alphas_cumprod[t], t in range
    // _get_prev_sample: x at `prevT` from x at `t` and the (combined) model output, eq. (9).
    torch::Tensor prevSample(const torch::Tensor& sample, int64_t t, int64_t prevT,
                             const torch::Tensor& modelOutput) const;
    torch::Tensor stepPrk(const torch::Tensor& modelOutput, int64_t t, const torch::Tensor& sample);
    torch::Tensor stepPlms(const torch::Tensor& modelOutput, int64_t t,
                           const torch::Tensor& sample);

    int m_numPrk = 0;  // 12 without skip_prk_steps, else 0
    // diffusers' running values
    int m_counter = 0;
    std::vector<torch::Tensor> m_ets;  // the last (up to 4) model outputs the PLMS formula uses
    torch::Tensor m_curSample;         // x at the start of a PRK group / of the PLMS start
    torch::Tensor m_curModelOutput;    // the PRK weighted sum (undefined: 0)
};

}  // namespace hs
