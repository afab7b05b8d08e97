#pragma once
// AdamW over a list of named fp32 parameters, with a state that saves to and restores from
// safetensors, so training resumes bit-exactly after an interruption.
#include <string>
#include <vector>

#include <torch/torch.h>

#include "models/common/weights.h"

namespace hs::demo {

class AdamW {
public:
    struct Options {
        double lr = 1e-3;
        double beta1 = 0.9, beta2 = 0.99, eps = 1e-8;
        double weightDecay = 0.0;
        double clipNorm = 1.0;  // global gradient-norm clip (0: off)
    };
    AdamW(std::vector<std::pair<std::string, torch::Tensor>> params, Options opt);

    void zeroGrad();
    // Applies one update with learning rate `lr`; returns the gradient norm before clipping.
    double step(double lr);
    int64_t steps() const { return m_step; }

    // State tensors keyed "<prefix>m.<param>", "<prefix>v.<param>"; the step count goes in
    // the metadata by the caller.
    void saveState(WeightMap& out, const std::string& prefix) const;
    void loadState(const WeightMap& in, const std::string& prefix, int64_t step);

private:
    std::vector<std::pair<std::string, torch::Tensor>> m_params;
    std::vector<torch::Tensor> m_m, m_v;
    Options m_opt;
    int64_t m_step = 0;
};

}  // namespace hs::demo
