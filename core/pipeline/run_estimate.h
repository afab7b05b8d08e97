#pragma once
// The estimate of a run's time and memory, made after its second step (after its only one in a
// one-step run) and reported through base/work_progress.h (WorkKind::Estimate), then compared
// with the time the run took (WorkKind::Finished).
//
// Method. Time: every step of a run does the same work (one denoiser pass, or two with
// classifier-free guidance, on inputs of one shape), so a step's time predicts the others. The
// first step also carries the run's warm-up (on a GPU: the CUDA context, kernel loading, cuDNN's
// algorithm choice; on the CPU: oneDNN building its kernels, cold caches), often several times a
// step's work: the estimate is therefore made after step 2 and takes the steps after the first
// (steadyStepSeconds); a one-step run is estimated from its only step. Step times are read after
// the device finished the step (runtime/device_sync.h). The VAE decode is measured on a corner of
// the x0 estimate (a quarter of each side, at least 8 latent pixels) and scaled by the pixel
// count: the decoder is convolutions whose cost grows with the pixels (its one attention layer is
// negligible at these sizes); small decodes carry fixed overhead, erring long. On a GPU the
// corner is decoded once untimed first, as kernels load on their first call whatever the shape;
// on the CPU oneDNN prepares each shape anew, so the final decode pays what the corner's first
// call pays.
//   seconds = elapsed until the estimate's step ended (reload, text encoder, steps 1-2)
//           + (steps - 2) * steadyStepSeconds + (1 + preview decodes) * decode estimate
// Memory: the parameter bytes the components hold in their formats (each tensor storage once; a
// streamed component's placeholders count one element) plus the activations, the growth of the
// process's peak resident memory from the start of step 1 to the estimate (which also holds a
// streamed block's converted weights). The peak is read from /proc/self/status (VmHWM) after a
// reset through /proc/self/clear_refs; where neither exists (not Linux) or the model runs on a
// GPU, the activations are unknown and the estimate says so.
// The test (tests/core/test_work_progress.cpp) holds the time within a factor of 3 of the
// measured run on the demo model and the tiny FLUX.1 fixture (on a shared CPU; on an idle one
// and on a GPU it is meant to lie within 1.5x), and checks that a slow first step is left out.
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

// The seconds one step takes, from the steps timed so far in run order (seconds each): the mean
// of those after the first, whose time holds the run's warm-up; the first alone when it is the
// only one; 0 for none.
double steadyStepSeconds(const std::vector<double>& stepSeconds);

// The run's seconds: `elapsedSeconds` until the last timed step ended, plus the steps of `steps`
// still to come at steadyStepSeconds, plus `decodes` full decodes of `decodeSeconds` each.
double estimateRunSeconds(double elapsedSeconds, const std::vector<double>& stepSeconds, int steps,
                          double decodeSeconds, int decodes);

// The 0-based step after which a run of `steps` makes its estimate: the second, the first whose
// time is free of the warm-up; the first of a one-step run.
int estimateStepIndex(int steps);

// The estimate of one run. Made at the start of Pipeline::run; measure points are no-ops unless
// runEstimatesWanted().
class RunEstimator {
public:
    RunEstimator();
    // Step 1 begins now (the peak memory is reset here).
    void beforeFirstStep();
    // A step ended after `seconds` (the device finished with it); steps are timed in run order.
    void stepTimed(double seconds);
    // After step estimateStepIndex(steps): `weightBytes` are held now, `onCpu` says whether the
    // resident memory holds the activations; `decodeSeconds` is the estimated full decode
    // (measured on a corner); `decodes` the full decodes still to come (1 + previews). Reports
    // WorkKind::Estimate.
    void estimate(int steps, double decodeSeconds, int decodes, uint64_t weightBytes, bool onCpu);
    // The run ended after `actualSeconds`: reports WorkKind::Finished with the estimate.
    void finish(double actualSeconds);
    bool active() const { return m_active; }
    // The estimate estimate() made, for the run's record (none before it).
    std::optional<RunEstimate> made() const;

private:
    bool m_active;
    bool m_made = false;
    std::chrono::steady_clock::time_point m_begin;
    std::vector<double> m_stepSeconds;
    uint64_t m_rssBefore = 0;
    bool m_peakReset = false;
    WorkProgress m_p;
};

// How many latent rows/columns the decode estimate decodes of a side of `n`.
int64_t estimateCornerSide(int64_t n);

// The seconds of a full decode of the x0 estimate `x0` [1, C, h, w]: `decode` runs on its
// corner (estimateCornerSide of each side) and the time is scaled by the pixels; with `warmUp` the
// corner is decoded once untimed first (a GPU). `decode` returns when the device has finished.
// 0 when `decode` throws (a VAE that takes no corner: the decode is left out); Cancelled passes
// through.
double cornerDecodeSeconds(const torch::Tensor& x0,
                           const std::function<void(const torch::Tensor&)>& decode,
                           bool warmUp = false);

// The full decodes still to come after the first `done` steps of `steps`: the final one and the
// previews every `decodeEvery` steps (0: none) at the steps not yet done.
int decodesAfterStep(int steps, int decodeEvery, int done);

}  // namespace hs
