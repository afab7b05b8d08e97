#include "sampling/flow_match_sampler.h"

#include <torch/torch.h>

#include <stdexcept>

namespace hs {

FlowSampleResult sampleFlowMatch(const FlowMatchEulerScheduler& scheduler, torch::Tensor latents,
                                 const FlowModelFn& model, const std::atomic<bool>* cancel,
                                 const FlowStepObserver& observer) {
    if (!model) throw std::invalid_argument("sampleFlowMatch: no model callback");
    if (scheduler.numSteps() == 0)
        throw std::invalid_argument("sampleFlowMatch: the scheduler has no timesteps");
    torch::NoGradGuard noGrad;
    FlowSampleResult r;
    r.latents = std::move(latents);
    const int n = scheduler.numSteps();
    const float trainSteps = float(scheduler.config().numTrainTimesteps);
    for (int i = 0; i < n; ++i) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            r.cancelled = true;
            return r;
        }
        const double t =
            double(float(scheduler.timestep(i)) / trainSteps);  // float32, as the pipeline
        torch::Tensor v = model(r.latents, t, i);
        torch::Tensor next = scheduler.step(v, i, r.latents);
        if (observer) {
            FlowStepView view;
            view.step = i;
            view.numSteps = n;
            view.sigma = scheduler.sigma(i);
            view.sigmaNext = scheduler.sigma(i + 1);
            view.latents = r.latents;
            view.modelOutput = v;
            view.denoised = r.latents.to(torch::kFloat32) - view.sigma * v.to(torch::kFloat32);
            view.next = next;
            observer(view);
        }
        r.latents = std::move(next);
        r.stepsDone = i + 1;
    }
    return r;
}

}  // namespace hs
