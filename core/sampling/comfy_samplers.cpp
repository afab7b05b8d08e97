#include "sampling/comfy_samplers.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace hs {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
}

// ComfyUI's SAMPLER_NAMES that are not implemented here, by the fallback that runs for them.
const std::vector<std::pair<std::string, std::vector<std::string>>>& comfyFallbacks() {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
        {"euler", {"euler_cfg_pp"}},
        {"euler_ancestral",
         {"euler_ancestral_cfg_pp", "dpm_2_ancestral", "dpmpp_2s_ancestral",
          "dpmpp_2s_ancestral_cfg_pp", "ddpm", "res_multistep_ancestral",
          "res_multistep_ancestral_cfg_pp", "sa_solver", "sa_solver_pece"}},
        {"heun", {"heunpp2", "exp_heun_2_x0", "exp_heun_2_x0_sde"}},
        {"dpmpp_2m",
         {"lms",
          "dpm_fast",
          "dpm_adaptive",
          "dpmpp_sde",
          "dpmpp_sde_gpu",
          "dpmpp_2m_cfg_pp",
          "dpmpp_2m_sde",
          "dpmpp_2m_sde_gpu",
          "dpmpp_2m_sde_heun",
          "dpmpp_2m_sde_heun_gpu",
          "dpmpp_3m_sde",
          "dpmpp_3m_sde_gpu",
          "ipndm",
          "ipndm_v",
          "deis",
          "res_multistep",
          "res_multistep_cfg_pp",
          "gradient_estimation",
          "gradient_estimation_cfg_pp",
          "er_sde",
          "seeds_2",
          "seeds_3",
          "uni_pc",
          "uni_pc_bh2"}},
    };
    return table;
}

// get_ancestral_step with eta 1: the sigma an Euler step goes down to and the noise added back.
std::pair<float, float> ancestralStep(float from, float to) {
    const float up = std::min(to, std::sqrt(to * to * (from * from - to * to) / (from * from)));
    return {std::sqrt(to * to - up * up), up};
}

}  // namespace

const std::vector<std::string>& comfySamplersImplemented() {
    static const std::vector<std::string> names = {
        "euler", "euler_ancestral", "heun", "dpm_2", "dpmpp_2m", "lcm", "ddim"};
    return names;
}

ComfySamplerChoice resolveComfySampler(const std::string& asked) {
    if (contains(comfySamplersImplemented(), asked)) return {asked, ""};
    for (const auto& [ran, names] : comfyFallbacks())
        if (contains(names, asked))
            return {ran, "ComfyUI's sampler " + asked + " is not implemented: " + ran +
                             " ran instead, on the same sigma schedule"};
    return {"euler", "'" + asked +
                         "' is not one of ComfyUI's samplers: euler ran instead, as "
                         "ComfyUI's KSampler runs an unknown name"};
}

std::vector<double> comfySamplerSigmas(const ComfyModelSampling& ms, const std::string& sampler,
                                       const std::string& scheduler, int steps) {
    static const std::vector<std::string> discardPenultimate = {"dpm_2", "dpm_2_ancestral",
                                                                "uni_pc", "uni_pc_bh2"};
    if (!contains(discardPenultimate, sampler)) return comfySigmas(ms, scheduler, steps);
    std::vector<double> s = comfySigmas(ms, scheduler, steps + 1);
    if (s.size() >= 2) s.erase(s.end() - 2);
    return s;
}

bool comfyCfgGuides(double cfg) {
    return std::abs(cfg - 1.0) > 1e-9 * std::max(1.0, std::abs(cfg));
}

torch::Tensor comfyInitialLatent(const ComfyModelSampling& ms, double sigma0,
                                 const torch::Tensor& noise) {
    const float s = float(sigma0);
    // CONST: s n + (1 - s) * 0; COSMOS_RFLOW: s n + 0, whatever sigma_0 is.
    if (ms.flow() || ms.prediction() == ComfyPrediction::CosmosRFlow) return noise * s;
    const double max = ms.sigmaMax();
    const bool maxDenoise =
        std::abs(max - s) <= 1e-5 * std::max(std::abs(max), std::abs(double(s))) || s > max;
    return maxDenoise ? noise * std::sqrt(1.0f + s * s) : noise * s;
}

ComfySampler::ComfySampler(std::string sampler, std::vector<double> sigmas,
                           const ComfyModelSampling& ms, uint64_t seed)
    : m_name(std::move(sampler)),
      m_sigmas(std::move(sigmas)),
      m_flow(ms.flow()),
      m_gen(at::detail::createCPUGenerator(seed)) {
    if (!contains(comfySamplersImplemented(), m_name))
        throw std::invalid_argument("ComfyUI sampler '" + m_name + "' is not implemented");
    if (m_sigmas.size() < 2) throw std::invalid_argument("a sampler needs at least two sigmas");
}

torch::Tensor ComfySampler::noiseLike(const torch::Tensor& x) {
    return torch::randn(x.sizes(), m_gen, torch::kFloat32).to(x.device());
}

ComfySampler::Step ComfySampler::step(int i, const torch::Tensor& x, const ComfyDenoiser& denoise) {
    if (i < 0 || i >= numSteps()) throw std::invalid_argument("sampler step out of range");
    const float s = float(m_sigmas[size_t(i)]), sNext = float(m_sigmas[size_t(i) + 1]);
    Step out;
    out.denoised = denoise(x, s);
    out.modelCalls = 1;
    const torch::Tensor& den = out.denoised;
    auto toD = [](const torch::Tensor& xs, float sigma, const torch::Tensor& d) {
        return (xs - d) / sigma;  // the Karras ODE derivative
    };
    if (m_name == "euler" || m_name == "ddim") {
        out.next = x + toD(x, s, den) * (sNext - s);
    } else if (m_name == "heun" || m_name == "dpm_2") {
        const auto d = toD(x, s, den);
        if (sNext == 0) {
            out.next = x + d * (sNext - s);
        } else if (m_name == "heun") {
            const auto x2 = x + d * (sNext - s);
            const auto d2 = toD(x2, sNext, denoise(x2, sNext));
            out.next = x + (d + d2) / 2 * (sNext - s);
            out.modelCalls = 2;
        } else {
            // DPM-Solver-2: the midpoint in log sigma (torch.lerp with weight 0.5).
            const float ls = std::log(s), lNext = std::log(sNext);
            const float mid = std::exp(lNext - (lNext - ls) * 0.5f);
            const auto x2 = x + d * (mid - s);
            const auto d2 = toD(x2, mid, denoise(x2, mid));
            out.next = x + d2 * (sNext - s);
            out.modelCalls = 2;
        }
    } else if (m_name == "dpmpp_2m") {
        // DPM-Solver++(2M) in t = -log sigma; a final step to 0 gives the x0 estimate itself.
        const float t = -std::log(s), tNext = -std::log(sNext), h = tNext - t;
        const float ratio = std::exp(-tNext) / std::exp(-t), c = std::expm1(-h);
        if (!m_oldDenoised.defined() || sNext == 0) {
            out.next = ratio * x - c * den;
        } else {
            const float hLast = t + std::log(float(m_sigmas[size_t(i) - 1]));
            const float r = hLast / h;
            const auto dd = (1 + 1 / (2 * r)) * den - (1 / (2 * r)) * m_oldDenoised;
            out.next = ratio * x - c * dd;
        }
        m_oldDenoised = den;
    } else if (m_name == "lcm") {
        out.next = den;
        if (sNext > 0)
            out.next =
                m_flow ? sNext * noiseLike(x) + (1.0f - sNext) * den : noiseLike(x) * sNext + den;
    } else if (!m_flow) {  // euler_ancestral
        const auto [down, up] = ancestralStep(s, sNext);
        if (down == 0)
            out.next = den;
        else
            out.next = x + toD(x, s, den) * (down - s) + noiseLike(x) * up;
    } else {  // euler_ancestral on a flow model: sample_euler_ancestral_RF with eta 1
        if (sNext == 0) {
            out.next = den;
        } else {
            const float downRatio = 1.0f + (sNext / s - 1.0f);
            const float down = sNext * downRatio;
            const float alphaNext = 1.0f - sNext, alphaDown = 1.0f - down;
            const float renoise = std::sqrt(
                sNext * sNext - (down * down) * (alphaNext * alphaNext) / (alphaDown * alphaDown));
            const float r = down / s;
            const auto blended = r * x + (1.0f - r) * den;
            out.next = (alphaNext / alphaDown) * blended + noiseLike(x) * renoise;
        }
    }
    return out;
}

ComfySampler comfySamplerFor(const ComfyModelSampling& ms, const std::string& sampler,
                             const std::string& scheduler, int steps, uint64_t seed,
                             std::vector<std::string>& notes) {
    std::string schedule = scheduler.empty() ? "normal" : scheduler;
    if (!isComfyScheduler(schedule)) {
        notes.push_back("ComfyUI's scheduler " + schedule +
                        " is not implemented: normal ran instead");
        schedule = "normal";
    }
    const ComfySamplerChoice choice = resolveComfySampler(sampler);
    if (!choice.note.empty()) notes.push_back(choice.note);
    if (choice.sampler == "euler_ancestral" || choice.sampler == "lcm")
        notes.push_back("the " + choice.sampler +
                        " noise is drawn from a CPU generator seeded with the seed, as ComfyUI "
                        "does when it samples on the CPU (on a GPU it draws other numbers)");
    return ComfySampler(choice.sampler, comfySamplerSigmas(ms, sampler, schedule, steps), ms, seed);
}

torch::Tensor runComfySampler(ComfySampler& sampler, torch::Tensor x,
                              const ComfyDenoiser& denoise) {
    for (int i = 0; i < sampler.numSteps(); ++i) x = sampler.step(i, x, denoise).next;
    return x;
}

}  // namespace hs
