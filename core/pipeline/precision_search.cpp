#include "pipeline/precision_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "diagnosis/blocks.h"
#include "base/cancel.h"
#include "pipeline/pipeline.h"
#include "base/work_progress.h"

namespace hs {

double imageDifference(const PreviewImage& a, const PreviewImage& b) {
    if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size() || a.rgb.empty())
        return 1.0;
    double sum = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(int(a.rgb[i]) - int(b.rgb[i]));
    return sum / (255.0 * double(a.rgb.size()));
}

double imageMse(const PreviewImage& a, const PreviewImage& b) {
    if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size() || a.rgb.empty())
        return std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (size_t i = 0; i < a.rgb.size(); ++i) {
        const double d = int(a.rgb[i]) - int(b.rgb[i]);
        sum += d * d;
    }
    return sum / double(a.rgb.size());
}

namespace {

// Every trial runs on one pipeline: a new plan reloads only the components it changes.
// Throws Cancelled when the search's cancel flag stops the load or the run.
RunRecord runWith(std::unique_ptr<Pipeline>& pipeline, const RunConfig& base,
                  const PrecisionPlan& plan, const std::atomic<bool>* cancel) {
    RunConfig cfg = base;
    cfg.plan = plan;
    try {
        if (!pipeline)
            pipeline =
                Pipeline::load(cfg.modelDir, cfg.modelFiles, plan, torch::Device(cfg.device));
        else
            pipeline->setPlan(plan);
    } catch (...) {
        pipeline.reset();  // a failed reload leaves no half-loaded pipeline for the next trial
        throw;
    }
    RunRecord r = pipeline->run(cfg, nullptr, cancel);
    if (r.cancelled) throw Cancelled();  // not an outcome: a cut-short run has no image to judge
    return r;
}

bool failed(const RunRecord& r) {
    return r.firstNonFinite.has_value() || r.verdict != "ok" || !r.image.allFinite();
}

int64_t nonFiniteCount(const RunRecord& r) {
    int64_t n = r.image.nonFinite();
    for (const auto& s : r.steps) n += s.latent.nonFinite();
    return n;
}

}  // namespace

namespace {

PrecisionSearch search(const RunConfig& config, const PrecisionSearchOptions& o,
                       PrecisionSearch& s) {
    RunConfig base = config;
    if (o.trialSteps > 0) base.steps = o.trialSteps;
    base.probeLevel = ProbeLevel::Layer;  // the block list comes from the failing run's probes
    base.keepLatents = false;
    base.decodeEvery = 0;
    auto stage = [&](const std::string& t) {
        if (o.onStage) o.onStage(t);
    };

    std::unique_ptr<Pipeline> pipeline;
    stage("failing run");
    s.failingRun = runWith(pipeline, base, config.plan, o.cancel);
    PrecisionPlan reference = config.plan;
    std::vector<std::string> fp16Components;
    for (const auto& c : s.failingRun.components)
        if (c.format == Format::FP16) {
            fp16Components.push_back(c.name);
            reference.add(c.name, o.safeFormat);
        }
    s.referencePlan = reference.toString();
    s.result.safeFormat = o.safeFormat;
    s.result.tolerance = o.tolerance;
    s.planFails = failed(s.failingRun);
    if (!s.planFails) {
        s.result.status = BisectionStatus::NoCandidates;
        s.result.message = "the plan " + config.plan.toString() +
                           " does not fail: no NaN or Inf and the image is " + s.failingRun.verdict;
        return s;
    }
    if (fp16Components.empty()) {
        s.result.status = BisectionStatus::NoCandidates;
        s.result.message =
            "no component runs in fp16 under this plan, so no block can be moved "
            "out of fp16; the failure does not come from fp16 overflow";
        return s;
    }

    stage("reference run");
    RunConfig referenceConfig = base;
    // scale:K takes K from the largest value inside a block: record every op there.
    if (std::find(o.remedies.begin(), o.remedies.end(), RemedyKind::Scale) != o.remedies.end())
        referenceConfig.probeLevel = ProbeLevel::Op;
    s.referenceRun = runWith(pipeline, referenceConfig, reference, o.cancel);
    const std::optional<PreviewImage> refImage = s.referenceRun.savedImage;

    // Every block and component-level module (embedders, norm_out, proj_out ...): with massive
    // activations the whole residual stream is large, so its last readers must leave fp16 too.
    std::vector<std::string> candidates;
    for (const auto& b : blocksInCallOrder(s.failingRun, "", /*repeatedOnly=*/false))
        for (const auto& c : fp16Components)
            if (componentOf(b) == c) candidates.push_back(b);

    double lastMse = std::numeric_limits<double>::quiet_NaN();
    // "trial i of at most n" per phase (base/work_progress.h): the bisection's n is its
    // iteration limit, the remedies' the candidates to try.
    std::string trialPhase = "bisection";
    int trialIndex = 0, trialCount = o.maxIterations;
    auto trial = [&](const PrecisionPlan& plan) {
        const WorkStage progress(WorkKind::Trial, trialPhase, ++trialIndex, trialCount);
        TrialOutcome out;
        lastMse = std::numeric_limits<double>::quiet_NaN();
        const auto t0 = std::chrono::steady_clock::now();
        try {
            const RunRecord r = runWith(pipeline, base, plan, o.cancel);
            out.nonFinite = nonFiniteCount(r);
            out.allFinite = !r.firstNonFinite && out.nonFinite == 0;
            out.verdict = r.verdict;
            if (refImage && r.savedImage) {
                out.difference = imageDifference(*r.savedImage, *refImage);
                lastMse = imageMse(*r.savedImage, *refImage);
            }
        } catch (const Cancelled&) {
            throw;  // the bisection and the remedy loop stop; no outcome is recorded
        } catch (const std::exception& e) {
            out.error = e.what();
        }
        out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return out;
    };
    const bool bisect = o.remedies.empty() || std::find(o.remedies.begin(), o.remedies.end(),
                                                        RemedyKind::Format) != o.remedies.end();
    if (bisect) {
        stage("bisection");
        BisectionOptions bo;
        bo.safeFormat = o.safeFormat;
        bo.tolerance = o.tolerance;
        bo.maxIterations = o.maxIterations;
        bo.cancel = o.cancel;
        bo.onTrial = o.onTrial;
        s.result = bisectPrecision(config.plan, candidates, trial, bo);
    } else {
        s.result.candidates = candidates;
        s.result.message = "no bisection: the remedies were tried without format changes";
    }
    if (o.remedies.empty() || (o.cancel && o.cancel->load())) return s;

    // The blocks that must change: the bisection's, else in each fp16 component the block of
    // its first NaN/Inf (in a later component that may be where the NaN arrived).
    RemedyTable table;
    table.referencePlan = s.referencePlan;
    if (s.result.found) {
        table.failingBlocks = s.result.keptBlocks;
    } else {
        std::vector<std::string> seen;
        for (const auto& r : s.failingRun.probes) {
            const std::string c = componentOf(r.name);
            if (r.stats.allFinite() || std::find(seen.begin(), seen.end(), c) != seen.end() ||
                std::find(fp16Components.begin(), fp16Components.end(), c) == fp16Components.end())
                continue;
            seen.push_back(c);
            table.failingBlocks.push_back(blockOf(r.name));
        }
    }
    auto absMaxOf = [&](const std::string& module) {
        double m = 0;
        for (const auto& r : s.referenceRun.probes)
            if (pathMatches(module, r.name) && std::isfinite(r.stats.absMax))
                m = std::max(m, r.stats.absMax);
        return m;
    };
    stage("remedies");
    const int steps = std::max(1, base.steps);
    std::vector<RemedyCandidate> remedyList =
        remedyCandidates(config.plan, table.failingBlocks, o.remedies, absMaxOf);
    trialPhase = "remedies";
    trialIndex = 0;
    trialCount = int(remedyList.size());
    for (RemedyCandidate& c : remedyList) {
        if (o.cancel && o.cancel->load()) break;
        RemedyRow row;
        row.planText = c.plan.toString();
        try {
            row.outcome = trial(c.plan);
        } catch (const Cancelled&) {
            break;  // the rows tried so far are ranked
        }
        row.passed = trialPasses(row.outcome, o.tolerance, &row.why);
        row.psnr = psnrFromMse(lastMse);
        if (std::isnan(lastMse)) row.psnr = lastMse;
        row.secondsPerStep = row.outcome.seconds / steps;
        row.candidate = std::move(c);
        if (o.onRemedy) o.onRemedy(row);
        table.rows.push_back(std::move(row));
    }
    auto blocksOf = [&](const std::string& component) {
        return int(blocksInCallOrder(s.failingRun, component, /*repeatedOnly=*/true).size());
    };
    rankRemedies(table, o.target, s.failingRun.components, blocksOf);
    s.remedies = std::move(table);
    return s;
}

}  // namespace

PrecisionSearch searchPrecision(const RunConfig& config, const PrecisionSearchOptions& o) {
    PrecisionSearch s;
    // Loads and reloads between trials stop within one tensor, runs within one block.
    CancelScope scope(o.cancel);
    const QuietRuns shortTrials;  // the trials report as trials, not as runs
    try {
        return search(config, o, s);
    } catch (const Cancelled&) {
        // Cancelled in the failing or the reference run (the bisection catches its own).
        s.result.status = BisectionStatus::Cancelled;
        s.result.message = "the search was cancelled before the bisection began";
        return s;
    }
}

}  // namespace hs
