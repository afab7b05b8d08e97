#include "sampling/scheduler_util.h"

#include <torch/torch.h>

#include <sstream>
#include <stdexcept>

#include "sampling/scheduler.h"

namespace hs::sched {

namespace {

std::string shapeOf(const torch::Tensor& t) {
    std::ostringstream os;
    os << t.sizes();
    return os.str();
}

}  // namespace

void checkNumSteps(const std::string& cls, int n) {
    if (n < 1 || n > kMaxSteps)
        throw std::invalid_argument(cls + ": the number of inference steps must be 1.." +
                                    std::to_string(kMaxSteps) + ", got " + std::to_string(n));
}

void checkPlainSteps(const std::string& cls, const ScheduleOptions& o, int n, int numTrain) {
    if (o.mu || o.sigmas)
        throw std::invalid_argument(cls + ": set_timesteps takes neither 'mu' nor 'sigmas'");
    checkNumSteps(cls, n);
    if (numTrain > 0 && n > numTrain)
        throw std::invalid_argument(cls + ": " + std::to_string(n) +
                                    " inference steps, more than num_train_timesteps " +
                                    std::to_string(numTrain));
}

void checkTimestepsInRange(const std::string& cls, const std::vector<int64_t>& timesteps,
                           int numTrain, int stepsOffset) {
    for (int64_t t : timesteps)
        if (t < 0 || t >= numTrain)
            throw std::invalid_argument(cls + ": timestep " + std::to_string(t) +
                                        " outside the training schedule (steps_offset " +
                                        std::to_string(stepsOffset) + ")");
}

void checkStepIndex(const std::string& cls, int i, int n) {
    if (n == 0) throw std::invalid_argument(cls + ": set_timesteps was not called");
    if (i < 0 || i >= n)
        throw std::invalid_argument(cls + ": step index " + std::to_string(i) +
                                    " out of range for " + std::to_string(n) + " steps");
}

void checkShapes(const std::string& cls, const torch::Tensor& modelOutput,
                 const torch::Tensor& sample) {
    if (!modelOutput.defined() || !sample.defined())
        throw std::invalid_argument(cls + ": step() needs a model output and a sample");
    if (modelOutput.sizes() != sample.sizes())
        throw std::invalid_argument(cls + ": the model output " + shapeOf(modelOutput) +
                                    " and the sample " + shapeOf(sample) +
                                    " must have the same shape");
}

torch::Tensor noiseFor(const std::string& cls, const torch::Tensor& like, c10::ScalarType dtype,
                       const torch::Tensor& noise, c10::optional<at::Generator> generator) {
    if (noise.defined()) {
        if (noise.sizes() != like.sizes())
            throw std::invalid_argument(cls + ": the noise " + shapeOf(noise) +
                                        " must have the sample's shape " + shapeOf(like));
        return noise.to(like.device(), dtype);
    }
    const auto device = generator && generator->defined() ? generator->device() : like.device();
    auto opts = torch::TensorOptions().dtype(dtype).device(device);
    return at::randn(like.sizes(), generator, opts).to(like.device());
}

torch::Tensor floatTensor(const std::vector<float>& v) {
    return torch::from_blob(const_cast<float*>(v.data()), {int64_t(v.size())}, torch::kFloat32)
        .clone();
}

torch::Tensor sigmasOfAlphas(const torch::Tensor& alphasCumprod,
                             const std::vector<int64_t>& timesteps,
                             const torch::Tensor& finalAlphaCumprod) {
    std::vector<torch::Tensor> a;
    for (int64_t t : timesteps) a.push_back(alphasCumprod[t]);
    a.push_back(finalAlphaCumprod);
    auto acp = torch::stack(a);         // [n + 1]
    return ((1 - acp) / acp).pow(0.5);  // [n + 1] float32
}

}  // namespace hs::sched
