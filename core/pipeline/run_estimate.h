#pragma once
// The estimate of a run's time and memory, made after its first step and reported through
// base/work_progress.h (WorkKind::Estimate), then compared with the time the run took
// (WorkKind::Finished).
//
// Method. Time: every step of a run does the same work (one denoiser pass, or two with
// classifier-free guidance, on inputs of one shape), so the first step's time predicts the
// others; the first step is usually the slowest (oneDNN builds its kernels, caches are cold),
// which makes the estimate err on the long side. The VAE decode is measured on a corner of the
// first step's x0 estimate (a quarter of each side, at least 8 latent pixels) and scaled by the
// pixel count: the decoder is convolutions whose cost grows with the pixels (its one attention
// layer is negligible at these sizes); small decodes carry fixed overhead, again erring long.
//   seconds = elapsed until step 1 ended (reload, text encoder, step 1)
//           + (steps - 1) * step 1's time + (1 + preview decodes) * decode estimate
// Memory: the parameter bytes the components hold in their formats (each tensor storage once; a
// streamed component's placeholders count one element) plus the activations, the growth of the
// process's peak resident memory from the start of step 1 to its end (which also holds a
// streamed block's converted weights). The peak is read from /proc/self/status (VmHWM) after a
// reset through /proc/self/clear_refs; where neither exists (not Linux) or the model runs on a
// GPU, the activations are unknown and the estimate says so.
// The test (tests/core/test_work_progress.cpp) holds the time within a factor of 3 of the
// measured run on the demo model and the tiny FLUX.1 fixture.
#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "base/work_progress.h"
#include "records/run_types.h"

namespace hs {

// The bytes of the tensors (parameters and buffers) `module` holds, each storage counted once.
uint64_t heldTensorBytes(const torch::nn::Module& module);

// Resident memory of this process (Linux; 0 elsewhere).
struct ResidentMemory {
    static uint64_t current();  // VmRSS
    static uint64_t peak();     // VmHWM since start or the last resetPeak()
    static bool resetPeak();    // false where the peak cannot be reset
};

// The estimate of one run. Made at the start of Pipeline::run; measure points are no-ops unless
// runEstimatesWanted().
class RunEstimator {
public:
    RunEstimator();
    // Step 1 begins now (the peak memory is reset here).
    void beforeFirstStep();
    // Step 1 ended after `stepSeconds`; `weightBytes` are held now, `onCpu` says whether the
    // resident memory holds the activations; `decodeSeconds` is the estimated full decode
    // (measured on a corner); `decodes` the full decodes still to come (1 + previews). Reports
    // WorkKind::Estimate.
    void afterFirstStep(double stepSeconds, int steps, double decodeSeconds, int decodes,
                        uint64_t weightBytes, bool onCpu);
    // The run ended after `actualSeconds`: reports WorkKind::Finished with the estimate.
    void finish(double actualSeconds);
    bool active() const { return m_active; }
    // The estimate afterFirstStep() made, for the run's record (none before it).
    std::optional<RunEstimate> made() const;

private:
    bool m_active;
    bool m_made = false;
    std::chrono::steady_clock::time_point m_begin;
    uint64_t m_rssBefore = 0;
    bool m_peakReset = false;
    WorkProgress m_p;
};

// How many latent rows/columns the decode estimate decodes of a side of `n`.
int64_t estimateCornerSide(int64_t n);

// The seconds of a full decode of the x0 estimate `x0` [1, C, h, w]: `decode` runs on its
// corner (estimateCornerSide of each side) and the time is scaled by the pixels. 0 when `decode`
// throws (a VAE that takes no corner: the decode is left out); Cancelled passes through.
double cornerDecodeSeconds(const torch::Tensor& x0,
                           const std::function<void(const torch::Tensor&)>& decode);

// The full decodes still to come after step 1 of `steps`: the final one and the previews every
// `decodeEvery` steps (0: none), less step 1's own when every step is decoded.
int decodesAfterFirstStep(int steps, int decodeEvery);

}  // namespace hs
