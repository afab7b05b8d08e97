#include "pipeline/precision_searcher.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "base/cancel.h"
#include "base/work_progress.h"
#include "diagnosis/blocks.h"
#include "diagnosis/image_verdict.h"

namespace hs {

namespace {

bool runFailed(const RunRecord& r) {
    return r.firstNonFinite.has_value() || r.verdict != "ok" || !r.image.allFinite();
}

int64_t nonFiniteValues(const RunRecord& r) {
    int64_t n = r.image.nonFinite();
    for (const auto& s : r.steps) n += s.latent.nonFinite();
    return n;
}

bool hasRemedy(const std::vector<RemedyKind>& remedies, RemedyKind kind) {
    return std::find(remedies.begin(), remedies.end(), kind) != remedies.end();
}

}  // namespace

PrecisionSearcher::PrecisionSearcher(const RunConfig& config, const PrecisionSearchOptions& o)
    : m_config(config), m_o(o), m_base(config), m_trialCount(o.maxIterations) {
    if (o.trialSteps > 0) m_base.steps = o.trialSteps;
    m_base.probeLevel = ProbeLevel::Layer;  // the block list comes from the failing run's probes
    m_base.keepLatents = false;
    m_base.decodeEvery = 0;
}

void PrecisionSearcher::run() {
    if (!runFailingPlan()) return;
    runReferencePlan();
    bisect();
    if (m_o.remedies.empty() || cancelled()) return;
    tryRemedies();
}

void PrecisionSearcher::stage(const std::string& title) const {
    if (m_o.onStage) m_o.onStage(title);
}

bool PrecisionSearcher::cancelled() const {
    return m_o.cancel && m_o.cancel->load();
}

RunRecord PrecisionSearcher::runWith(const RunConfig& base, const PrecisionPlan& plan) {
    RunConfig cfg = base;
    cfg.plan = plan;
    try {
        if (!m_pipeline)
            m_pipeline =
                Pipeline::load(cfg.modelDir, cfg.modelFiles, plan, torch::Device(cfg.device));
        else
            m_pipeline->setPlan(plan);
    } catch (...) {
        m_pipeline.reset();  // a failed reload leaves no half-loaded pipeline for the next trial
        throw;
    }
    RunRecord r = m_pipeline->run(cfg, nullptr, m_o.cancel);
    if (r.cancelled) throw Cancelled();  // not an outcome: a cut-short run has no image to judge
    return r;
}

bool PrecisionSearcher::runFailingPlan() {
    stage("failing run");
    m_s.failingRun = runWith(m_base, m_config.plan);
    m_referencePlan = m_config.plan;
    for (const auto& c : m_s.failingRun.components)
        if (c.format == Format::FP16) {
            m_fp16Components.push_back(c.name);
            m_referencePlan.add(c.name, m_o.safeFormat);
        }
    m_s.referencePlan = m_referencePlan.toString();
    m_s.result.safeFormat = m_o.safeFormat;
    m_s.result.tolerance = m_o.tolerance;
    m_s.planFails = runFailed(m_s.failingRun);
    if (!m_s.planFails) {
        m_s.result.status = BisectionStatus::NoCandidates;
        m_s.result.messageText = {{"bisection.plan_passes", {m_config.plan.toString()}},
                                  verdictNameMessage(m_s.failingRun.verdict)};
        m_s.result.message = englishText(m_s.result.messageText);
        return false;
    }
    if (m_fp16Components.empty()) {
        m_s.result.status = BisectionStatus::NoCandidates;
        m_s.result.messageText = {{"bisection.no_fp16", {}}};
        m_s.result.message = englishText(m_s.result.messageText);
        return false;
    }
    return true;
}

void PrecisionSearcher::runReferencePlan() {
    stage("reference run");
    RunConfig referenceConfig = m_base;
    // scale:K takes K from the largest value inside a block: record every op there.
    if (hasRemedy(m_o.remedies, RemedyKind::Scale)) referenceConfig.probeLevel = ProbeLevel::Op;
    m_s.referenceRun = runWith(referenceConfig, m_referencePlan);
}

TrialOutcome PrecisionSearcher::trial(const PrecisionPlan& plan) {
    const WorkStage progress(WorkKind::Trial, m_trialPhase, ++m_trialIndex, m_trialCount);
    const std::optional<PreviewImage>& refImage = m_s.referenceRun.savedImage;
    TrialOutcome out;
    m_lastMse = std::numeric_limits<double>::quiet_NaN();
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const RunRecord r = runWith(m_base, plan);
        out.nonFinite = nonFiniteValues(r);
        out.allFinite = !r.firstNonFinite && out.nonFinite == 0;
        out.verdict = r.verdict;
        if (refImage && r.savedImage) {
            out.difference = imageDifference(*r.savedImage, *refImage);
            m_lastMse = imageMse(*r.savedImage, *refImage);
        }
    } catch (const Cancelled&) {
        throw;  // the bisection and the remedy loop stop; no outcome is recorded
    } catch (const std::exception& e) {
        out.error = e.what();
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

void PrecisionSearcher::bisect() {
    // Every block and component-level module (embedders, norm_out, proj_out ...): with massive
    // activations the whole residual stream is large, so its last readers must leave fp16 too.
    for (const auto& b : blocksInCallOrder(m_s.failingRun, "", /*repeatedOnly=*/false))
        for (const auto& c : m_fp16Components)
            if (componentOf(b) == c) m_candidates.push_back(b);

    if (!m_o.remedies.empty() && !hasRemedy(m_o.remedies, RemedyKind::Format)) {
        m_s.result.candidates = m_candidates;
        setNoBisectionForRemedies(m_s.result);
        return;
    }
    stage("bisection");
    m_s.result = bisectPrecision(
        m_config.plan, m_candidates, [this](const PrecisionPlan& p) { return trial(p); },
        static_cast<const BisectionOptions&>(m_o));
}

std::vector<std::string> PrecisionSearcher::failingBlocks() const {
    // The bisection's blocks, else in each fp16 component the block of its first NaN/Inf (in a
    // later component that may be where the NaN arrived).
    if (m_s.result.found) return m_s.result.keptBlocks;
    std::vector<std::string> blocks, seen;
    for (const auto& r : m_s.failingRun.probes) {
        const std::string c = componentOf(r.name);
        if (r.stats.allFinite() || std::find(seen.begin(), seen.end(), c) != seen.end() ||
            std::find(m_fp16Components.begin(), m_fp16Components.end(), c) ==
                m_fp16Components.end())
            continue;
        seen.push_back(c);
        blocks.push_back(blockOf(r.name));
    }
    return blocks;
}

void PrecisionSearcher::tryRemedies() {
    RemedyTable table;
    table.referencePlan = m_s.referencePlan;
    table.failingBlocks = failingBlocks();
    auto absMaxOf = [&](const std::string& module) {
        double m = 0;
        for (const auto& r : m_s.referenceRun.probes)
            if (pathMatches(module, r.name) && std::isfinite(r.stats.absMax))
                m = std::max(m, r.stats.absMax);
        return m;
    };
    stage("remedies");
    const int steps = std::max(1, m_base.steps);
    std::vector<RemedyCandidate> remedyList =
        remedyCandidates(m_config.plan, table.failingBlocks, m_o.remedies, absMaxOf);
    m_trialPhase = "remedies";
    m_trialIndex = 0;
    m_trialCount = int(remedyList.size());
    for (RemedyCandidate& c : remedyList) {
        if (cancelled()) break;
        RemedyRow row;
        row.planText = c.plan.toString();
        try {
            row.outcome = trial(c.plan);
        } catch (const Cancelled&) {
            break;  // the rows tried so far are ranked
        }
        row.passed = trialPasses(row.outcome, m_o.tolerance, &row.why, &row.whyMessage);
        row.psnr = psnrFromMse(m_lastMse);
        if (std::isnan(m_lastMse)) row.psnr = m_lastMse;
        row.secondsPerStep = row.outcome.seconds / steps;
        row.candidate = std::move(c);
        if (m_o.onRemedy) m_o.onRemedy(row);
        table.rows.push_back(std::move(row));
    }
    auto blocksOf = [&](const std::string& component) {
        return int(blocksInCallOrder(m_s.failingRun, component, /*repeatedOnly=*/true).size());
    };
    rankRemedies(table, m_o.target, m_s.failingRun.components, blocksOf);
    m_s.remedies = std::move(table);
}

}  // namespace hs
