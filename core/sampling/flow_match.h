#pragma once
// diffusers FlowMatchEulerDiscreteScheduler (rectified flow, Euler steps) and the Flux
// pipeline's resolution-dependent shift (calculate_shift).
#include <torch/types.h>

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hs {

struct FlowMatchConfig {
    int numTrainTimesteps = 1000;
    double shift = 1.0;
    bool useDynamicShifting = false;
    double baseShift = 0.5;
    double maxShift = 1.15;
    int baseImageSeqLen = 256;
    int maxImageSeqLen = 4096;
    std::string timeShiftType = "exponential";  // or "linear"
    std::optional<double> shiftTerminal;

    // Reads a diffusers scheduler_config.json. Options this port does not implement
    // (use_karras_sigmas, use_exponential_sigmas, use_beta_sigmas, invert_sigmas,
    // stochastic_sampling set to true) throw ConfigError naming the field.
    static FlowMatchConfig fromJson(const nlohmann::json& j);
};

class FlowMatchEulerScheduler {
public:
    // No schedule until setTimesteps() or setSigmas().
    explicit FlowMatchEulerScheduler(FlowMatchConfig config = {});

    // The default schedule: `n` timesteps from sigma_max to sigma_min, then the shift (static
    // `shift`, or time_shift(mu) with use_dynamic_shifting; mu is then required), then
    // shift_terminal; a final sigma 0 is appended. Throws std::invalid_argument.
    void setTimesteps(int numSteps, std::optional<double> mu = std::nullopt);
    // A caller-given sigma schedule (FluxPipeline passes linspace(1, 1/n, n)); the shift is
    // applied to it in float32, as diffusers does with `np.array(sigmas).astype(np.float32)`.
    void setSigmas(const std::vector<double>& sigmas, std::optional<double> mu = std::nullopt);

    const FlowMatchConfig& config() const { return m_config; }
    int numSteps() const { return m_timesteps.defined() ? int(m_timesteps.size(0)) : 0; }
    const torch::Tensor& timesteps() const { return m_timesteps; }  // [n] float32 (sigma * 1000)
    const torch::Tensor& sigmas() const { return m_sigmas; }        // [n + 1] float32, last 0
    double sigma(int i) const;
    double timestep(int i) const;
    // The model's time input at step i as FluxPipeline passes it: timesteps[i] / 1000 computed in
    // float32 (sigma up to float32 rounding).
    double modelTime(int i) const;
    double sigmaMin() const { return m_sigmaMin; }
    double sigmaMax() const { return m_sigmaMax; }

    // Euler step i: x_{i+1} = x_i + (sigma_{i+1} - sigma_i) * v, computed from the float32
    // sample and returned in v's dtype, exactly as diffusers' step().
    torch::Tensor step(const torch::Tensor& modelOutput, int stepIndex,
                       const torch::Tensor& sample) const;
    // The x0 estimate at step i: x_i - sigma_i * v, in float32 (what the previews show).
    torch::Tensor denoised(const torch::Tensor& modelOutput, int stepIndex,
                           const torch::Tensor& sample) const;

private:
    template <typename T>
    std::vector<T> shiftSigmas(std::vector<T> s, std::optional<double> mu) const;
    void finish(const std::vector<float>& sigmas);

    FlowMatchConfig m_config;
    double m_sigmaMin = 0, m_sigmaMax = 1;
    torch::Tensor m_timesteps, m_sigmas;
};

// FluxPipeline's calculate_shift: mu grows linearly from base_shift at base_seq_len to
// max_shift at max_seq_len with the number of packed image tokens.
double calculateShift(int64_t imageSeqLen, int64_t baseSeqLen = 256, int64_t maxSeqLen = 4096,
                      double baseShift = 0.5, double maxShift = 1.15);
double calculateShift(int64_t imageSeqLen, const FlowMatchConfig& config);

// FluxPipeline's default sigmas: np.linspace(1.0, 1 / n, n).
std::vector<double> fluxPipelineSigmas(int numSteps);

}  // namespace hs
