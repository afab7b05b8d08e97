#pragma once
// ComfyUI's k-diffusion samplers (its k_diffusion/sampling.py) over a denoiser D(x, sigma) -> the
// x0 estimate: euler, euler_ancestral, heun, dpm_2, dpmpp_2m, lcm, and ddim (which ComfyUI runs as
// euler). On flow models (CONST model sampling) euler_ancestral is ComfyUI's rectified-flow
// variant and lcm renoises as x = s n + (1 - s) x0. Scalars follow ComfyUI's float32 tensors;
// the ancestral noise is what ComfyUI's default noise sampler draws when it samples on the CPU:
// a generator seeded with the run's seed, one randn of x's shape per noisy step (on a GPU
// ComfyUI draws from the device's generator, whose numbers differ).
// Samplers that are not implemented (SDE and Brownian-tree ones, uni_pc, lms, ...) run as the
// nearest implemented one, named by resolveComfySampler.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sampling/comfy_sigmas.h"

namespace hs {

// x [B, C, h, w] float32 and the noise level (a float32 value) -> the x0 estimate, same shape.
using ComfyDenoiser = std::function<torch::Tensor(const torch::Tensor& x, double sigma)>;

// The samplers implemented here, by ComfyUI's names.
const std::vector<std::string>& comfySamplersImplemented();

struct ComfySamplerChoice {
    std::string sampler;  // what runs: `asked` when implemented
    std::string note;     // "" when `asked` runs; else a sentence naming what ran instead
};
// The sampler that runs for ComfyUI's `asked` name: itself when implemented, else the nearest
// implemented one (ancestral and stochastic samplers -> euler_ancestral; SDE, multistep and
// other deterministic solvers -> dpmpp_2m; heun-like -> heun; names ComfyUI does not have ->
// euler, as its KSampler does).
ComfySamplerChoice resolveComfySampler(const std::string& asked);

// KSampler.calculate_sigmas: the schedule for `sampler`, where dpm_2, dpm_2_ancestral, uni_pc
// and uni_pc_bh2 compute steps + 1 and drop the penultimate sigma. `sampler` is the image's own
// name (the schedule ComfyUI used), not the fallback's.
std::vector<double> comfySamplerSigmas(const ComfyModelSampling& ms, const std::string& sampler,
                                       const std::string& scheduler, int steps);

// Whether ComfyUI's sampling_function runs the unconditional pass at this cfg: always but at 1
// (math.isclose).
bool comfyCfgGuides(double cfg);

// The noise_scaling of KSAMPLER.sample on an empty latent: EPS, V and X0 scale the noise by
// sqrt(1 + sigma0^2) when sigma0 is the model's largest sigma (max_denoise) and by sigma0
// otherwise; CONST and COSMOS_RFLOW by sigma0. `noise` float32, any shape.
torch::Tensor comfyInitialLatent(const ComfyModelSampling& ms, double sigma0,
                                 const torch::Tensor& noise);

// One sampler run, a step at a time (the step loop belongs to the caller, which records each).
class ComfySampler {
public:
    // `sampler`: one of comfySamplersImplemented() (std::invalid_argument otherwise); `sigmas`
    // from comfySamplerSigmas, at least 2; `seed`: the ancestral noise's.
    ComfySampler(std::string sampler, std::vector<double> sigmas, const ComfyModelSampling& ms,
                 uint64_t seed);

    const std::string& name() const { return m_name; }
    int numSteps() const { return int(m_sigmas.size()) - 1; }
    const std::vector<double>& sigmas() const { return m_sigmas; }

    struct Step {
        torch::Tensor next;      // x after step i, float32
        torch::Tensor denoised;  // the first D call's x0 estimate at sigma_i
        int modelCalls = 0;      // 1, or 2 for heun and dpm_2 (not on a final step to 0)
    };
    // Step i of numSteps(), in order from 0 (dpmpp_2m keeps the previous x0 estimate).
    Step step(int i, const torch::Tensor& x, const ComfyDenoiser& denoise);

private:
    torch::Tensor noiseLike(const torch::Tensor& x);

    std::string m_name;
    std::vector<double> m_sigmas;  // [n + 1] float32 values
    bool m_flow;
    at::Generator m_gen;
    torch::Tensor m_oldDenoised;  // dpmpp_2m
};

// The sampler a run computes for ComfyUI's `sampler` and `scheduler` names over `steps`: an
// unimplemented sampler runs its resolveComfySampler fallback on the image's own schedule, an
// unknown scheduler (or none) runs "normal"; each such change, and where an ancestral sampler's
// noise comes from, is added to `notes` as a sentence. `seed`: the run's.
ComfySampler comfySamplerFor(const ComfyModelSampling& ms, const std::string& sampler,
                             const std::string& scheduler, int steps, uint64_t seed,
                             std::vector<std::string>& notes);

// The whole loop, for tests and callers without per-step records: x from comfyInitialLatent.
torch::Tensor runComfySampler(ComfySampler& sampler, torch::Tensor x, const ComfyDenoiser& denoise);

}  // namespace hs
