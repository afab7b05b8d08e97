#pragma once
// Precision bisection: the fewest blocks that must leave fp16 for a run to come out right.
// Independent of the engine: the caller runs the pipeline for each trial plan.
//
// Algorithm (after NVIDIA Polygraphy's `debug precision`, which bisects over how many layers,
// counted from the start or from the end of the network, must run in higher precision):
//   1. verify: every candidate block in the safe format. If that fails, these blocks cannot
//      fix the run and the search stops (status CannotFix).
//   2. from the start: binary search for the smallest k such that the first k candidates (call
//      order) in the safe format pass. k = 0 is the failing plan and is assumed to fail.
//   3. from the end: the same for the last m candidates. Skipped when k == 1. The smaller of
//      the two sets is kept (a tie keeps the prefix).
//   4. shrink: try dropping each kept block in call order; keep the drop when the run still
//      passes. The empty set (the failing plan) is never tried.
// Both searches assume that keeping more blocks safe never hurts (monotonicity), as Polygraphy
// does; the shrink step removes blocks that the contiguous range only carried along.
// A trial whose set of safe blocks was already tried is not run again (its outcome is reused
// and no iteration is spent). The result plan always passed a trial, unless nothing did.
// No LibTorch.
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "records/message.h"
#include "records/precision_plan.h"

namespace hs {

// What the caller's run of one trial plan gave.
struct TrialOutcome {
    bool allFinite = false;
    int64_t nonFinite = 0;  // NaN + Inf values seen (probes, latents, image)
    std::string verdict;    // "ok", "nan/inf", "black", "flat" (empty: not judged)
    // Difference to the reference image in [0, 1], e.g. the mean absolute difference of pixel
    // levels in [0, 1]. NaN: no reference, not compared.
    double difference = std::numeric_limits<double>::quiet_NaN();
    double seconds = 0;
    std::string error;  // the trial could not run (an exception's message)
};

using TrialFunction = std::function<TrialOutcome(const PrecisionPlan&)>;

struct BisectionTrial {
    int iteration = 0;                    // 1-based: the n-th trial actually run
    std::string phase;                    // "verify", "from_start", "from_end", "shrink"
    std::vector<std::string> safeBlocks;  // in call order
    std::string planText;
    TrialOutcome outcome;
    bool passed = false;
    std::string why;         // "passes: ...", or what made it fail
    MessageText whyMessage;  // the same as a message (empty in reports written before it)
};

struct BisectionOptions {
    Format safeFormat = Format::BF16;
    double tolerance = 0.05;  // largest TrialOutcome::difference that passes
    int maxIterations = 32;   // trials run at most (cache hits are free)
    // Read before each trial; a trial function that throws hs::Cancelled (base/cancel.h)
    // ends the search the same way, without an outcome for that trial.
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const BisectionTrial&)> onTrial;  // after each trial, on the caller's thread
};

enum class BisectionStatus {
    Fixed,           // found a passing set and finished shrinking it
    CannotFix,       // all candidates in the safe format still fail
    IterationLimit,  // stopped at maxIterations: the kept set passes but may not be minimal
    Cancelled,       // the cancel flag was set: the kept set is the best passing one so far
    NoCandidates,    // the candidate list was empty
};
std::string bisectionStatusName(BisectionStatus s);  // "fixed", "cannot_fix", ...

struct BisectionResult {
    BisectionStatus status = BisectionStatus::NoCandidates;
    Format safeFormat = Format::BF16;
    double tolerance = 0;
    std::vector<std::string> candidates;
    std::vector<BisectionTrial> trials;   // every trial run, in order
    std::vector<std::string> keptBlocks;  // call order; empty when nothing passed
    PrecisionPlan plan;                   // failing plan + "<block>=<safe>" per kept block
    std::string planText;                 // plan.toString()
    bool found = false;                   // keptBlocks passed a trial
    std::string message;                  // one sentence for the user
    MessageText messageText;              // the same as a message (records/message.h)

    bool cancelled() const { return status == BisectionStatus::Cancelled; }
    bool hitIterationLimit() const { return status == BisectionStatus::IterationLimit; }
};

// The failing plan plus one exact rule per block (never a glob: "blocks.1*" would also catch
// blocks 10-19). Blocks that the plan already resolves to `safe` still get their rule, so the
// plan text says what was decided.
PrecisionPlan planWithSafeBlocks(const PrecisionPlan& failing,
                                 const std::vector<std::string>& blocks, Format safe);

// Whether an outcome passes, and why (shared with the report): in English and as a message.
bool trialPasses(const TrialOutcome& o, double tolerance, std::string* why = nullptr,
                 MessageText* whyMessage = nullptr);

// The message given when remedies other than format changes were asked for, so no bisection
// ran: "no bisection: the remedies were tried without format changes".
void setNoBisectionForRemedies(BisectionResult& r);

BisectionResult bisectPrecision(const PrecisionPlan& failing,
                                const std::vector<std::string>& candidates,
                                const TrialFunction& trial, const BisectionOptions& options = {});

}  // namespace hs
