#pragma once
// Small checks and conversions the scheduler ports share (not part of the public interface).
#include <torch/types.h>

#include <string>
#include <vector>

namespace hs {
struct ScheduleOptions;  // sampling/scheduler.h
}

namespace hs::sched {

// The most inference steps a schedule takes (far above any sampler setting; a larger value is a
// mistake, not a request).
constexpr int kMaxSteps = 10000;

// Throws std::invalid_argument unless 1 <= n <= kMaxSteps.
void checkNumSteps(const std::string& cls, int n);
// set_timesteps(n) of a class that takes neither mu nor sigmas: throws std::invalid_argument for
// either, unless 1 <= n <= kMaxSteps, and (numTrain > 0) past num_train_timesteps.
void checkPlainSteps(const std::string& cls, const ScheduleOptions& o, int n, int numTrain = 0);
// Throws std::invalid_argument unless every timestep lies in the training schedule [0, numTrain)
// (a large steps_offset pushes them out).
void checkTimestepsInRange(const std::string& cls, const std::vector<int64_t>& timesteps,
                           int numTrain, int stepsOffset);
// Throws std::invalid_argument unless a schedule is set and 0 <= i < n.
void checkStepIndex(const std::string& cls, int i, int n);
// Throws std::invalid_argument unless model output and sample have the same shape.
void checkShapes(const std::string& cls, const torch::Tensor& modelOutput,
                 const torch::Tensor& sample);
// The caller's noise (checked against `like`'s shape), or randn of `like`'s shape in `dtype`
// drawn from `generator` (on its device, then moved to `like`'s), as diffusers' randn_tensor.
torch::Tensor noiseFor(const std::string& cls, const torch::Tensor& like, c10::ScalarType dtype,
                       const torch::Tensor& noise, c10::optional<at::Generator> generator);

torch::Tensor floatTensor(const std::vector<float>& v);  // [n] float32

// sqrt((1 - acp) / acp) at each timestep and at the final alpha: the sigmas of a scheduler that
// has none in diffusers (DDIM, PNDM), for plots. [timesteps + 1] float32
torch::Tensor sigmasOfAlphas(const torch::Tensor& alphasCumprod,
                             const std::vector<int64_t>& timesteps,
                             const torch::Tensor& finalAlphaCumprod);

}  // namespace hs::sched
