#pragma once
// Finds the cheapest precision plan that fixes a failing run: runs the failing plan and a
// reference (every fp16 component in the safe format) on the pipeline, then bisects over the
// blocks and top-level modules of the fp16 components (diagnosis/bisection.h), one pipeline run
// per trial.
#include <atomic>
#include <functional>
#include <string>

#include "diagnosis/bisection.h"
#include "diagnosis/remedies.h"
#include "records/run_types.h"

namespace hs {

// The bisection's options (safe format, tolerance as the mean |difference| of [0, 1] pixel
// levels to the reference, iterations, onTrial) and the search's own. `cancel` stops a load, run
// or trial within one block; the result's status is then Cancelled.
struct PrecisionSearchOptions : BisectionOptions {
    int trialSteps = 0;  // sampling steps per trial run; 0: the config's steps
    std::function<void(const std::string&)> onStage;  // "failing run", "reference run"
    // Remedies to try and rank (diagnosis/remedies.h); empty: the bisection alone. Without
    // Format the bisection is skipped and the remedies act on the first failing block.
    std::vector<RemedyKind> remedies;
    DeviceInfo target = DeviceInfo::cpu();  // the device the remedies' costs speak for
    std::function<void(const RemedyRow&)> onRemedy;
};

struct PrecisionSearch {
    RunRecord failingRun;    // the config's plan, at trialSteps
    RunRecord referenceRun;  // fp16 components in the safe format
    std::string referencePlan;
    bool planFails = false;  // the failing run held NaN/Inf or gave no usable image
    BisectionResult result;
    std::optional<RemedyTable> remedies;  // when options.remedies named some
};

// `config.plan` is the failing plan. Throws what Pipeline::load / run throw (FileError,
// PipelineError ...). A plan that does not fail gives status NoCandidates and a message.
PrecisionSearch searchPrecision(const RunConfig& config, const PrecisionSearchOptions& options);

// Mean absolute difference of two 8-bit RGB images, as levels in [0, 1]; 1 when the sizes differ.
double imageDifference(const PreviewImage& a, const PreviewImage& b);
// Mean squared difference of the 8-bit levels (0..255^2); NaN when the sizes differ.
double imageMse(const PreviewImage& a, const PreviewImage& b);

}  // namespace hs
