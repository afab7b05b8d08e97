#include "denoising/flow_match_run.h"

#include "families/flux/flux_latents.h"

namespace hs {

FlowMatchRun::FlowMatchRun(const RunConfig& cfg, const torch::Device& device, bool guided,
                           const VaeComponent& vae, Packing packing)
    : m_cfg(cfg),
      m_device(device),
      m_guided(guided),
      m_packing(packing),
      m_h(cfg.height / vae.downFactor()),
      m_w(cfg.width / vae.downFactor()) {
    torch::Tensor noise = initialNoise(cfg, vae);  // [1, C, h, w]
    m_x = (packing == Packing::TwoByTwo ? packLatents(noise) : noise).to(device);
}

void FlowMatchRun::schedule(FlowMatchConfig scheduler, Sigmas sigmas,
                            std::optional<int64_t> imageTokens) {
    if (m_cfg.shift) scheduler.shift = *m_cfg.shift;
    m_scheduler = FlowMatchEulerScheduler(scheduler);
    std::optional<double> mu;
    if (imageTokens && scheduler.useDynamicShifting) mu = calculateShift(*imageTokens, scheduler);
    if (sigmas == Sigmas::FluxPipeline)
        m_scheduler.setSigmas(fluxPipelineSigmas(m_cfg.steps), mu);
    else
        m_scheduler.setTimesteps(m_cfg.steps, mu);
}

DenoiseStep FlowMatchRun::eulerStep(int i, const torch::Tensor& v) {
    DenoiseStep s;
    s.sigma = m_scheduler.sigma(i);
    s.timestep = m_scheduler.timestep(i);
    s.modelOutput = toImage(v);
    s.denoised = toImage(m_scheduler.denoised(v, i, m_x));
    m_x = m_scheduler.step(v, i, m_x);
    s.next = toImage(m_x);
    return s;
}

torch::Tensor FlowMatchRun::toImage(const torch::Tensor& x) const {
    return m_packing == Packing::TwoByTwo ? unpackLatents(x, m_h, m_w) : x;
}

}  // namespace hs
