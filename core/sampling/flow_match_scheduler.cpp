#include "sampling/flow_match_scheduler.h"

#include <stdexcept>

#include "sampling/scheduler_util.h"

namespace hs {

namespace {
const char* kFlowMatchClass = "FlowMatchEulerDiscreteScheduler";
}

void FlowMatchEulerDiscreteAdapter::setTimesteps(int numSteps, const ScheduleOptions& o) {
    if (o.sigmas) {
        const int n = int(o.sigmas->size());
        if (numSteps != 0 && numSteps != n)
            throw std::invalid_argument(std::string(kFlowMatchClass) + ": " + std::to_string(n) +
                                        " sigmas for " + std::to_string(numSteps) +
                                        " steps (they must be as many)");
        sched::checkNumSteps(kFlowMatchClass, n);
        m_s.setSigmas(*o.sigmas, o.mu);
        return;
    }
    sched::checkNumSteps(kFlowMatchClass, numSteps);
    m_s.setTimesteps(numSteps, o.mu);
}

torch::Tensor FlowMatchEulerDiscreteAdapter::scaleModelInput(const torch::Tensor& sample,
                                                             int i) const {
    sched::checkStepIndex(kFlowMatchClass, i, numSteps());
    return sample;
}

SchedulerStep FlowMatchEulerDiscreteAdapter::step(const torch::Tensor& modelOutput, int i,
                                                  const torch::Tensor& sample, const torch::Tensor&,
                                                  c10::optional<at::Generator>) {
    sched::checkStepIndex(kFlowMatchClass, i, numSteps());
    sched::checkShapes(kFlowMatchClass, modelOutput, sample);
    return {m_s.step(modelOutput, i, sample), m_s.denoised(modelOutput, i, sample)};
}

}  // namespace hs
