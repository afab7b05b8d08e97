#pragma once
// Progress of the long parts of a run or a search that are not a model load: text encoding, VAE
// decoding, which streamed block is resident, the precision search's trials, and the run's
// estimate of its time and memory (pipeline/run_estimate.h). Built like base/load_progress.h:
// a thread installs a WorkProgressScope with its callback and the engine reports to the innermost
// live one; thread-local, so runs on other threads are not affected; no Qt, no LibTorch. Stopping
// is base/cancel.h's: every stage reported here runs through probe points or weight
// conversions that read the cancel flags.
#include <chrono>
#include <functional>
#include <string>

namespace hs {

enum class WorkKind {
    TextEncoding,  // `what` "text encoder"
    VaeDecoding,   // `what` "vae decode"
    Block,         // a streamed block became resident: `what` its prefix, of `component`
    Trial,         // a precision-search trial: `what` its phase, `index` of at most `count`
    Estimate,      // the run's estimate, after its second step (estimate* fields)
    Finished,      // the run ended: `actualSeconds` beside the estimate it made
};

struct WorkProgress {
    WorkKind kind = WorkKind::TextEncoding;
    std::string component;  // Block: "transformer", "text_encoder_2"
    std::string what;
    int index = 0;  // 1-based position among `count` (0: none)
    int count = 0;
    double elapsedSeconds = 0;  // since this stage began (a done report: its whole time)
    bool done = false;          // the stage's last report
    // Estimate and Finished: seconds of the whole run, bytes of memory it needs (weights +
    // activations), each -1 where unknown. Finished repeats the estimate it made.
    double estimateSeconds = -1;
    double estimateBytes = -1;
    double weightBytes = -1;
    double activationBytes = -1;
    double actualSeconds = -1;
};

using WorkProgressFn = std::function<void(const WorkProgress&)>;

// While alive, work on this thread reports to `fn`. Stage starts, ends, trials and estimates
// always reach it; Block reports (one per block per step) at most every `blockIntervalSeconds`.
// The callback runs on the working thread (for Block, under the stream's lock): keep it short.
class WorkProgressScope {
public:
    explicit WorkProgressScope(WorkProgressFn fn, double blockIntervalSeconds = 0.25);
    ~WorkProgressScope();
    WorkProgressScope(const WorkProgressScope&) = delete;
    WorkProgressScope& operator=(const WorkProgressScope&) = delete;

private:
    WorkProgressFn m_fn;
    double m_interval;
    std::chrono::steady_clock::time_point m_lastBlock;
    bool m_anyBlock = false;
    const WorkProgressScope* m_outer;
    friend void reportWork(const WorkProgress& p);
};

// True when a WorkProgressScope is alive on this thread (extra measuring work, such as the run
// estimate's, is done only then).
bool workProgressWanted();

// Sends `p` to this thread's innermost scope, if any (Block reports throttled, see above).
void reportWork(const WorkProgress& p);

// One stage: reports its start when made and its end (done, with the time it took) when it goes
// out of scope normally. A stage left by an exception (cancelled, failed) reports no end.
class WorkStage {
public:
    WorkStage(WorkKind kind, std::string what, int index = 0, int count = 0);
    ~WorkStage();
    WorkStage(const WorkStage&) = delete;
    WorkStage& operator=(const WorkStage&) = delete;

private:
    WorkProgress m_p;
    int m_exceptions;
    std::chrono::steady_clock::time_point m_begin;
};

// A streamed component's block `block` (index 1-based of `count`) was converted and is now
// resident (models/common/weight_stream.h calls it).
void noteBlockResident(const std::string& component, const std::string& block, int index,
                       int count);

// While alive, runs on this thread report none of their own stages, estimates or ends (text
// encoding, VAE decoding, Estimate, Finished): a precision search runs dozens of short trials
// and reports those instead. Streamed blocks are still reported.
class QuietRuns {
public:
    QuietRuns();
    ~QuietRuns();
    QuietRuns(const QuietRuns&) = delete;
    QuietRuns& operator=(const QuietRuns&) = delete;
};
bool runEstimatesWanted();  // a scope is alive and no QuietRuns is

// One English line: "text encoder: done in 0.4 s", "transformer: block 3/19 resident
// (transformer_blocks.2.)", "trial 3 of at most 32 (bisection)", "estimate: about 12 s and
// 1.4 GB (weights 1.1 GB + activations 0.3 GB)", "took 11.2 s; estimated about 12 s".
std::string workProgressText(const WorkProgress& p);
// "0.4 s", "12 s", "3.5 min"; "1.4 GB", "310 MB".
std::string secondsText(double seconds);
std::string bytesText(double bytes);

}  // namespace hs
