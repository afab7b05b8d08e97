#pragma once
// The flow-matching sampling loop (FluxPipeline's denoising loop without the model): a free
// function over a model callback, cancellable between steps.
#include <torch/types.h>

#include <atomic>
#include <functional>

#include "sampling/flow_match.h"

namespace hs {

// Model callback: latents x_i and the model's time input for step i, which is what
// FluxPipeline passes as `timestep / 1000`: timesteps[i] / num_train_timesteps in float32 (sigma
// up to float32 rounding). Returns the velocity v (same shape as x).
using FlowModelFn = std::function<torch::Tensor(const torch::Tensor& x, double sigma, int step)>;

// What the observer sees after each completed step.
struct FlowStepView {
    int step = 0;  // 0-based
    int numSteps = 0;
    double sigma = 0;           // sigmas[step]
    double sigmaNext = 0;       // sigmas[step + 1]
    torch::Tensor latents;      // x_i, the model input
    torch::Tensor modelOutput;  // v
    torch::Tensor denoised;     // x0 = x_i - sigma * v, float32 (the preview image's latents)
    torch::Tensor next;         // x_{i+1}
};
using FlowStepObserver = std::function<void(const FlowStepView&)>;

struct FlowSampleResult {
    torch::Tensor latents;  // x after the last completed step
    int stepsDone = 0;
    bool cancelled = false;  // true when `cancel` stopped the loop before the last step
};

// Runs every step of `scheduler` (setTimesteps() done) from `latents`. `cancel`, when given, is
// read before each step; once true the loop returns the latents reached so far, with cancelled
// set. Exceptions of the callbacks propagate.
FlowSampleResult sampleFlowMatch(const FlowMatchEulerScheduler& scheduler, torch::Tensor latents,
                                 const FlowModelFn& model,
                                 const std::atomic<bool>* cancel = nullptr,
                                 const FlowStepObserver& observer = nullptr);

}  // namespace hs
