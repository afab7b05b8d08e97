#pragma once
// What the flow-matching runs (Flux, Qwen-Image, SD3, Anima) share: the config, the device,
// whether guidance runs, the latents, the schedule and the step. Flux and Qwen-Image keep their
// latents packed 2x2 ([1, (h/2)(w/2), 4C]); what the run hands out (latents(), the DenoiseStep's
// tensors) is always [1, C, h, w].
//
// Two ways to step, one model call per family (velocity()):
//   the model's own: FlowMatchEulerScheduler on the diffusers schedule, x += (s' - s) v;
//   ComfyUI's (RunConfig::comfySampler set): the family's model sampling as ComfyUI's
//   supported_models give it (CONST), its sigma schedule, its k-diffusion sampler over
//   D(x, sigma) = x - sigma v(x, t(sigma)), and the start noise * sigma_0 from the same CPU
//   randn. Euler (or ddim) on the simple schedule keeps the model's own path where its sigmas
//   are ComfyUI's (FLUX.1 at a step count that divides the table): the same numbers either way.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "denoising/strategy.h"
#include "sampling/comfy_samplers.h"
#include "sampling/flow_match.h"

namespace hs {

class FlowMatchRun : public DenoisingRun {
public:
    int numSteps() const override;
    torch::Tensor latents() const override { return toImage(m_x); }
    std::vector<std::string> notes() const override { return m_notes; }
    DenoiseStep step(int i, ProbeContext& probes) final;

protected:
    enum class Packing { None, TwoByTwo };
    // Draws the initial noise (initialNoise) for `vae`'s latent size, packed as `packing` says.
    // `guided`: whether the model's own path runs a second (unconditional) pass.
    FlowMatchRun(const RunConfig& cfg, const torch::Device& device, bool guided,
                 const VaeComponent& vae, Packing packing);

    // How ComfyUI samples the family (comfy/supported_models.py, comfy/model_sampling.py): its
    // model sampling, whose timestep(sigma) is also the family's time input (sigma, or
    // sigma * 1000 for SD3), and whether its guidance is ComfyUI's CFG (a second pass unless
    // cfg is 1; false: distilled guidance, one pass).
    struct ComfyFamily {
        ComfyModelSampling sampling;
        bool cfg = true;
    };

    // The schedule: `scheduler` with the config's shift override; sigmas linspace(1, 1/N, N)
    // as the Flux pipelines pass them, or the scheduler's own timesteps; mu from
    // `imageTokens` when the scheduler shifts dynamically (no mu when absent). With
    // cfg.comfySampler, ComfyUI's sampler on `comfy` (PipelineError for a scheduler without a
    // sampler); m_guided then follows ComfyUI's cfg.
    enum class Sigmas { FluxPipeline, SchedulerTimesteps };
    void schedule(FlowMatchConfig scheduler, Sigmas sigmas, std::optional<int64_t> imageTokens,
                  const ComfyFamily& comfy);

    // The family's guided velocity (float32) for latents `x` in the run's own layout (packed or
    // not) at the model's time input `t`. Under ComfyUI's sampler (comfySampling()) the guidance
    // is ComfyUI's: uncond + (cond - uncond) cfg, which on the velocities is the same mix as on
    // the denoised estimates x - sigma v.
    virtual torch::Tensor velocity(const torch::Tensor& x, double t, ProbeContext& probes) = 0;

    bool comfySampling() const { return m_sampler != nullptr; }
    torch::Tensor toImage(const torch::Tensor& x) const;   // unpacks packed latents
    torch::Tensor toLatent(const torch::Tensor& x) const;  // packs [1, C, h, w] when packed

    RunConfig m_cfg;
    torch::Device m_device;
    bool m_guided;
    Packing m_packing;
    int64_t m_h, m_w;   // latent height and width
    torch::Tensor m_x;  // [1, C, h, w], or packed [1, (h/2)(w/2), 4C]
    FlowMatchEulerScheduler m_scheduler;
    std::vector<std::string> m_notes;

private:
    // Scheduler step i with the guided velocity `v` (float32, the latents' own layout):
    // advances the latents and says what the step did, unpacked.
    DenoiseStep eulerStep(int i, const torch::Tensor& v);
    DenoiseStep comfyStep(int i, ProbeContext& probes);
    // Whether ComfyUI's `sampler` schedule is the scheduler's own to float32 rounding.
    bool sameSigmas(const std::vector<double>& comfy) const;

    bool m_timeTimesThousand = false;  // the model's own path passes timestep(i), not modelTime(i)
    std::unique_ptr<ComfyModelSampling> m_ms;
    std::unique_ptr<ComfySampler> m_sampler;  // null: the model's own path
};

}  // namespace hs
