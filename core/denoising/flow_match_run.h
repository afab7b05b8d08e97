#pragma once
// What the flow-matching runs (Flux, Qwen-Image, SD3, Anima) share: the config, the device,
// whether guidance runs, the latents, FlowMatchEulerScheduler and its schedule, and the Euler
// step from a velocity. Flux and Qwen-Image keep their latents packed 2x2
// ([1, (h/2)(w/2), 4C]); what the run hands out (latents(), the DenoiseStep's tensors) is
// always [1, C, h, w].
#include <optional>
#include <string>
#include <vector>

#include "denoising/strategy.h"
#include "sampling/flow_match.h"

namespace hs {

class FlowMatchRun : public DenoisingRun {
public:
    int numSteps() const override { return m_scheduler.numSteps(); }
    torch::Tensor latents() const override { return toImage(m_x); }
    std::vector<std::string> notes() const override { return m_notes; }

protected:
    enum class Packing { None, TwoByTwo };
    // Draws the initial noise (initialNoise) for `vae`'s latent size, packed as `packing` says.
    FlowMatchRun(const RunConfig& cfg, const torch::Device& device, bool guided,
                 const VaeComponent& vae, Packing packing);

    // The schedule: `scheduler` with the config's shift override; sigmas linspace(1, 1/N, N)
    // as the Flux pipelines pass them, or the scheduler's own timesteps; mu from
    // `imageTokens` when the scheduler shifts dynamically (no mu when absent).
    enum class Sigmas { FluxPipeline, SchedulerTimesteps };
    void schedule(FlowMatchConfig scheduler, Sigmas sigmas, std::optional<int64_t> imageTokens);

    // Scheduler step i with the guided velocity `v` (float32, the latents' own layout):
    // advances the latents and says what the step did, unpacked.
    DenoiseStep eulerStep(int i, const torch::Tensor& v);
    torch::Tensor toImage(const torch::Tensor& x) const;  // unpacks packed latents

    RunConfig m_cfg;
    torch::Device m_device;
    bool m_guided;
    Packing m_packing;
    int64_t m_h, m_w;   // latent height and width
    torch::Tensor m_x;  // [1, C, h, w], or packed [1, (h/2)(w/2), 4C]
    FlowMatchEulerScheduler m_scheduler;
    std::vector<std::string> m_notes;
};

}  // namespace hs
