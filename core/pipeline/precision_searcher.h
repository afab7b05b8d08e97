#pragma once
// The precision search of pipeline/precision_search.h as an object: one method per phase (the
// failing run, the reference run, the bisection, the remedies), the state they share as members.
// searchPrecision() is its one user.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "pipeline/precision_search.h"

namespace hs {

class PrecisionSearcher {
public:
    // `config.plan` is the failing plan.
    PrecisionSearcher(const RunConfig& config, const PrecisionSearchOptions& options);

    // Runs the phases in order. Throws Cancelled when the failing or the reference run is
    // cancelled (the bisection and the remedy loop stop on their own), and what Pipeline::load /
    // run throw; outcome() holds what the phases recorded before.
    void run();
    PrecisionSearch& outcome() { return m_s; }

private:
    // The config's plan, at the trial steps. False when there is nothing to search: the plan
    // does not fail, or no component runs in fp16 (the result's message says which).
    bool runFailingPlan();
    // Every fp16 component in the safe format; the image the trials are measured against.
    void runReferencePlan();
    // Bisects over the candidate blocks when the remedies include Format (or name none).
    void bisect();
    // Tries and ranks the remedies on the blocks that must change.
    void tryRemedies();
    std::vector<std::string> failingBlocks() const;

    // One trial run of `plan`, compared with the reference image; sets m_lastMse.
    TrialOutcome trial(const PrecisionPlan& plan);
    // Runs `plan` on the one pipeline, loading it for the first run; throws Cancelled when the
    // search's cancel flag stops the load or the run.
    RunRecord runWith(const RunConfig& cfg, const PrecisionPlan& plan);
    void stage(const std::string& title) const;
    bool cancelled() const;

    const RunConfig& m_config;
    const PrecisionSearchOptions& m_o;
    RunConfig m_base;  // the config at the trial steps, with layer probes and no latents kept
    // Every trial runs on one pipeline: a new plan reloads only the components it changes.
    std::unique_ptr<Pipeline> m_pipeline;
    std::vector<std::string> m_fp16Components;  // of the failing run, in its order
    PrecisionPlan m_referencePlan;              // the failing plan, fp16 components safe
    std::vector<std::string> m_candidates;      // the blocks the bisection may move
    PrecisionSearch m_s;
    // "trial i of at most n" per phase (base/work_progress.h): the bisection's n is its
    // iteration limit, the remedies' the candidates to try.
    std::string m_trialPhase = "bisection";
    int m_trialIndex = 0;
    int m_trialCount = 0;
    double m_lastMse = std::numeric_limits<double>::quiet_NaN();  // of the latest trial
};

}  // namespace hs
