#include "denoising/flow_match_run.h"

#include <algorithm>
#include <cmath>

#include "denoising/sd_comfy_run.h"
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
    m_x = toLatent(noise).to(device);
}

void FlowMatchRun::schedule(FlowMatchConfig scheduler, Sigmas sigmas,
                            std::optional<int64_t> imageTokens, const ComfyFamily& comfy) {
    if (m_cfg.shift) scheduler.shift = *m_cfg.shift;
    if (m_cfg.maxShift) scheduler.maxShift = *m_cfg.maxShift;
    if (m_cfg.baseShift) scheduler.baseShift = *m_cfg.baseShift;
    m_scheduler = FlowMatchEulerScheduler(scheduler);
    std::optional<double> mu;
    if (imageTokens && scheduler.useDynamicShifting) mu = calculateShift(*imageTokens, scheduler);
    if (sigmas == Sigmas::FluxPipeline)
        m_scheduler.setSigmas(fluxPipelineSigmas(m_cfg.steps), mu);
    else
        m_scheduler.setTimesteps(m_cfg.steps, mu);
    // The family's time input is what ComfyUI's model sampling numbers sigma as: sigma * 1000
    // (SD3) is the scheduler's timestep, sigma (the others) its modelTime.
    m_timeTimesThousand = comfy.sampling.timestep(1.0) > 1.0;

    validateComfySampling(m_cfg);
    if (m_cfg.comfySampler.empty()) return;
    const bool comfyGuided = comfy.cfg && comfyCfgGuides(m_cfg.guidance);
    std::vector<std::string> notes;
    auto sampler = std::make_unique<ComfySampler>(comfySamplerFor(
        comfy.sampling, m_cfg.comfySampler, m_cfg.comfyScheduler, m_cfg.steps, m_cfg.seed, notes));
    m_notes.insert(m_notes.end(), notes.begin(), notes.end());
    const bool euler = sampler->name() == "euler" || sampler->name() == "ddim";
    if (euler && comfyGuided == m_guided && sameSigmas(sampler->sigmas()))
        return;  // the model's own Euler steps are ComfyUI's: keep them, to the bit
    m_guided = comfyGuided;
    m_ms = std::make_unique<ComfyModelSampling>(comfy.sampling);
    m_sampler = std::move(sampler);
    // CONST noise_scaling on an empty latent: sigma_0 * noise + (1 - sigma_0) * 0.
    m_x = m_x * float(m_sampler->sigmas().front());
}

int FlowMatchRun::numSteps() const {
    return m_sampler ? m_sampler->numSteps() : m_scheduler.numSteps();
}

DenoiseStep FlowMatchRun::step(int i, ProbeContext& probes) {
    if (m_sampler) return comfyStep(i, probes);
    const double t = m_timeTimesThousand ? m_scheduler.timestep(i) : m_scheduler.modelTime(i);
    return eulerStep(i, velocity(m_x, t, probes));
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

// ComfyUI's sampler works on the latent as ComfyUI holds it, [1, C, h, w] (so that an ancestral
// sampler's randn has its shape); the model sees it in the run's own layout.
DenoiseStep FlowMatchRun::comfyStep(int i, ProbeContext& probes) {
    torch::Tensor firstVelocity;
    auto st = m_sampler->step(i, toImage(m_x), [&](const torch::Tensor& x, double sigma) {
        auto v = toImage(velocity(toLatent(x), m_ms->timestep(sigma), probes));
        if (!firstVelocity.defined()) firstVelocity = v;
        return x - v * float(sigma);  // CONST.calculate_denoised
    });
    DenoiseStep s;
    s.sigma = m_sampler->sigmas()[size_t(i)];
    s.timestep = m_ms->timestep(s.sigma);
    s.modelOutput = firstVelocity;
    s.denoised = st.denoised.to(torch::kFloat32);
    s.next = st.next.to(torch::kFloat32);
    m_x = toLatent(s.next);
    return s;
}

bool FlowMatchRun::sameSigmas(const std::vector<double>& comfy) const {
    const torch::Tensor own = m_scheduler.sigmas().to(torch::kFloat64).contiguous();
    if (own.numel() != int64_t(comfy.size())) return false;
    const double* o = own.data_ptr<double>();
    for (size_t k = 0; k < comfy.size(); ++k)
        if (std::abs(o[k] - comfy[k]) > 1e-6) return false;
    return true;
}

torch::Tensor FlowMatchRun::toImage(const torch::Tensor& x) const {
    return m_packing == Packing::TwoByTwo ? unpackLatents(x, m_h, m_w) : x;
}

torch::Tensor FlowMatchRun::toLatent(const torch::Tensor& x) const {
    return m_packing == Packing::TwoByTwo ? packLatents(x) : x;
}

}  // namespace hs
