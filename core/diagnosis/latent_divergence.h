#pragma once
// How far two runs' latents drift apart, step by step (for a comparison: same prompt and seed,
// different precision plans). Reads StepRecord::latentValues, which runs keep only with
// RunConfig::keepLatents. No LibTorch.
//
// Relative L2 distance of step s: ||b_s - a_s||_2 / ||a_s||_2 with `a` the reference run,
// summed in double. When ||a_s|| is 0 it is 0 for identical latents and +inf otherwise.
// NaN-aware: a step where either side holds a NaN or Inf gives +inf with nonFinite = true
// (never NaN, so plots and comparisons stay ordered).
#include <string>
#include <vector>

namespace hs {

struct RunRecord;

struct StepDivergence {
    int step = 0;
    bool available = false;  // both runs kept this step's latents, of the same size
    bool nonFinite = false;  // either side held NaN/Inf: relativeL2 is +inf
    double relativeL2 = 0;
    std::string note;  // why it is not available
};

// +inf for non-finite input (see above); throws std::invalid_argument for different sizes.
double relativeL2(const std::vector<float>& reference, const std::vector<float>& other,
                  bool* nonFinite = nullptr);

// One entry per step number present in either run, ascending.
std::vector<StepDivergence> latentDivergence(const RunRecord& reference, const RunRecord& other);

}  // namespace hs
