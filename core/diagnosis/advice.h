#pragma once
// What to do about a failure (or a predicted one): a short ranked list of precision fixes, each
// with its cost on the user's device in words and numbers.
//
// Ranking: each fix gets a score = (share of the model's parameters it moves out of fp16) x
// (cost of the target format on this device + 0.1), + 0.05 when the fix is predicted rather
// than verified by a bisection. Format costs: bf16 0 where it is native (CPU, CUDA >= 8.0) and
// 3 where it is emulated (CUDA < 8.0); fp32 2 on a GPU with fast fp16 (it loses the tensor
// cores and doubles the weights), 0.5 elsewhere (memory only). Lower scores come first. The
// numbers are a deliberate ordering rule, not a time measurement.
// Memory: fp32 weights take 2 bytes per parameter more than fp16; bf16 takes the same as fp16.
// MB means 10^6 bytes, GB 10^9. Where the device has a memory size, each fix also gets the
// weights of the whole model under its plan (each component's parameters x 4 bytes in fp32, 2 in
// bf16 or fp16; a component the plan leaves alone keeps the failing plan's format) and whether
// they fit; a fix that does not fit gets 100 added to its score, so it ranks below every fix
// that fits (weights only: activations and the CUDA context need more). Block fixes estimate their
// share as kept/total blocks of the component, assuming blocks of equal size (said in the cost
// text). No LibTorch.
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/bisection.h"
#include "diagnosis/device_info.h"
#include "diagnosis/first_failure.h"
#include "diagnosis/headroom.h"
#include "records/message.h"
#include "records/run_types.h"

namespace hs {

struct AdviceInput {
    DeviceInfo device;
    std::vector<ComponentInfo> components;  // stored dtypes, parameter counts, formats
    PrecisionPlan failingPlan;              // the plan that failed (or would fail in fp16)
    std::optional<FirstFailure> firstFailure;
    std::optional<HeadroomReport> headroom;  // from a clean run (fp32 / bf16)
    std::optional<BisectionResult> bisection;
    // The plans that runs beside the failing one have shown to fail (their effective plans) and
    // the components where each run first failed: a fix equal to one of those plans is never
    // offered, and a fix that leaves one of those components in fp16 ranks last.
    std::vector<PrecisionPlan> failedPlans;
    std::vector<std::string> failedComponents;
    // Where the run itself was, in words ("the CPU AMD EPYC 7B13"); said in a note when the
    // advice is for a target GPU (device.target). Empty: not said.
    std::string runDevice;
};

// A fix is offered only where no run has shown it to fail: not when its plan equals a failed
// run's, nor when it changes only components that run after the first failing point (that
// point then runs as it did and fails again). Where several components failed or overflow, one
// fix moves all of them, and a fix leaving any of them in fp16 ranks below every fix that
// does not (10 added to its score).
struct Fix {
    int rank = 0;               // 1 = do this first
    std::string kind;           // "blocks", "predicted_blocks", "component_bf16",
                                // "component_fp32", "check_inputs"
    std::string action;         // "keep transformer blocks 0-3 in bf16"
    std::string cost;           // "4 of 6 blocks; on this GPU (compute capability 7.5) ..."
    std::string planText;       // the plan that applies it ("" for check_inputs)
    MessageText actionMessage;  // action and cost as messages (empty in reports written before
    MessageText costMessage;    // messages were stored)
    std::string component;
    Format format = Format::BF16;
    int blocksKept = 0;  // block fixes
    int blocksTotal = 0;
    double extraWeightMB = 0;  // weights beyond fp16, MB (10^6 bytes)
    double weightGB = 0;       // the whole model's weights under the fix, GB; 0 unknown
    std::optional<bool> fits;  // weightGB within the device's memory; none: size unknown
    bool verified = false;     // a bisection trial passed with this plan
    // The verdict of a run of planText on the failing run's prompt and seed ("ok" ...); empty:
    // not tried, which every text that shows the fix says (a verified fix needs no run).
    std::string triedVerdict;
    bool tried() const { return verified || !triedVerdict.empty(); }
    double score = 0;  // see the ranking rule above
};

struct Advice {
    bool fp16IsTheProblem = false;
    bool predicted = false;  // from headroom only: the run itself did not fail
    std::string headline;    // one sentence
    std::vector<std::string> notes;
    // The same sentences as messages (englishText gives headline and notes); empty in reports
    // written before messages were stored.
    MessageText headlineMessage;
    std::vector<MessageText> noteMessages;
    std::vector<Fix> fixes;  // ranked, best first
    // The device the advice speaks for (a target GPU or the device that ran); none in reports
    // written before it was stored.
    std::optional<DeviceInfo> device;
};

Advice adviseFixes(const AdviceInput& input);

// How far a fix was checked, for the end of its action: " (verified)" by a bisection trial,
// " (tried on the same prompt and seed: ok)", " (not tried)"; "" for a fix with no plan.
std::string fixCheckText(const Fix& f);

}  // namespace hs
