#include "diagnosis/bisection.h"

#include <cmath>
#include <exception>
#include <map>
#include <optional>

#include "base/cancel.h"  // Cancelled only: header-only, no engine
#include "base/enum_names.h"
#include "diagnosis/blocks.h"
#include "diagnosis/image_verdict.h"

namespace hs {

std::string bisectionStatusName(BisectionStatus s) {
    static constexpr EnumName<BisectionStatus> names[] = {
        {BisectionStatus::Fixed, "fixed"},
        {BisectionStatus::CannotFix, "cannot_fix"},
        {BisectionStatus::IterationLimit, "iteration_limit"},
        {BisectionStatus::Cancelled, "cancelled"},
        {BisectionStatus::NoCandidates, "no_candidates"}};
    return nameIn(names, s);
}

PrecisionPlan planWithSafeBlocks(const PrecisionPlan& failing,
                                 const std::vector<std::string>& blocks, Format safe) {
    PrecisionPlan p = failing;
    for (const auto& b : blocks) p.add(b, safe);
    return p;
}

bool trialPasses(const TrialOutcome& o, double tolerance, std::string* why,
                 MessageText* whyMessage) {
    MessageText m;
    bool pass = false;
    const Message verdict = verdictNameMessage(o.verdict);
    if (!o.error.empty()) {
        m = {{"trial.not_run", {o.error}}};
    } else if (!o.allFinite || o.nonFinite > 0) {
        m = {{"trial.nonfinite", {std::to_string(o.nonFinite)}}};
        if (!o.verdict.empty())
            m.insert(m.end(), {{"trial.verdict_open", {}}, verdict, {"trial.verdict_close", {}}});
    } else if (!o.verdict.empty() && o.verdict != "ok") {
        m = {{"trial.finite_but", {}}, verdict};
    } else if (!std::isnan(o.difference) && !(o.difference <= tolerance)) {
        m = {{"trial.difference_above", {numberText(o.difference), numberText(tolerance)}}};
    } else {
        pass = true;
        m = {{"trial.passes", {}}};
        if (!o.verdict.empty()) m.insert(m.end(), {{"trial.passes_verdict", {}}, verdict});
        if (!std::isnan(o.difference))
            m.push_back(
                {"trial.passes_difference", {numberText(o.difference), numberText(tolerance)}});
    }
    if (why) *why = englishText(m);
    if (whyMessage) *whyMessage = std::move(m);
    return pass;
}

void setNoBisectionForRemedies(BisectionResult& r) {
    r.messageText = {{"bisection.remedies_only", {}}};
    r.message = englishText(r.messageText);
}

namespace {

class Bisector {
public:
    Bisector(const PrecisionPlan& failing, const std::vector<std::string>& candidates,
             const TrialFunction& trial, const BisectionOptions& o, BisectionResult& r)
        : m_failing(failing), m_candidates(candidates), m_trial(trial), m_opt(o), m_r(r) {}

    // nullopt: stopped (cancelled or out of iterations); m_r.status says which.
    std::optional<bool> test(const std::vector<size_t>& set, const char* phase) {
        auto hit = m_cache.find(set);
        if (hit != m_cache.end()) return hit->second;
        if (m_opt.cancel && m_opt.cancel->load()) {
            m_r.status = BisectionStatus::Cancelled;
            return std::nullopt;
        }
        if (int(m_r.trials.size()) >= m_opt.maxIterations) {
            m_r.status = BisectionStatus::IterationLimit;
            return std::nullopt;
        }
        BisectionTrial t;
        t.iteration = int(m_r.trials.size()) + 1;
        t.phase = phase;
        t.safeBlocks = names(set);
        const PrecisionPlan plan = planWithSafeBlocks(m_failing, t.safeBlocks, m_opt.safeFormat);
        t.planText = plan.normalisedText();
        try {
            t.outcome = m_trial(plan);
        } catch (const Cancelled&) {
            // Cancelled inside the trial's run: no outcome, the best set so far is kept.
            m_r.status = BisectionStatus::Cancelled;
            return std::nullopt;
        } catch (const std::exception& e) {
            t.outcome = TrialOutcome{};
            t.outcome.error = e.what();
        } catch (...) {
            t.outcome = TrialOutcome{};
            t.outcome.error = "unknown exception";
        }
        t.passed = trialPasses(t.outcome, m_opt.tolerance, &t.why, &t.whyMessage);
        m_r.trials.push_back(t);
        if (m_opt.onTrial) m_opt.onTrial(m_r.trials.back());
        m_cache[set] = t.passed;
        if (t.passed && (!m_haveBest || set.size() < m_best.size())) {
            m_best = set;
            m_haveBest = true;
        }
        return t.passed;
    }

    std::vector<std::string> names(const std::vector<size_t>& set) const {
        std::vector<std::string> out;
        for (size_t i : set) out.push_back(m_candidates[i]);
        return out;
    }

    static std::vector<size_t> range(size_t b, size_t e) {
        std::vector<size_t> v;
        for (size_t i = b; i < e; ++i) v.push_back(i);
        return v;
    }

    // Smallest count c in (0, n] such that makeSet(c) passes, given that makeSet(n) passed.
    // Returns nullopt when stopped.
    template <class F>
    std::optional<size_t> search(size_t n, F makeSet, const char* phase) {
        size_t lo = 0, hi = n;
        while (hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            auto r = test(makeSet(mid), phase);
            if (!r) return std::nullopt;
            (*r ? hi : lo) = mid;
        }
        return hi;
    }

    void run() {
        const size_t n = m_candidates.size();
        auto all = test(range(0, n), "verify");
        if (!all) return finish();
        if (!*all) {
            m_r.status = BisectionStatus::CannotFix;
            return finish();
        }
        auto k = search(
            n, [](size_t c) { return range(0, c); }, "from_start");
        if (!k) return finish();
        if (*k > 1) {
            auto m = search(
                n, [n](size_t c) { return range(n - c, n); }, "from_end");
            if (!m) return finish();
        }
        // m_best is now the smaller passing range (the prefix on a tie: it was found first).
        std::vector<size_t> kept = m_best;
        for (size_t b : std::vector<size_t>(kept)) {
            if (kept.size() == 1) break;  // the empty set is the failing plan
            std::vector<size_t> fewer;
            for (size_t i : kept)
                if (i != b) fewer.push_back(i);
            auto r = test(fewer, "shrink");
            if (!r) return finish();
            if (*r) kept = fewer;
        }
        m_best = kept;
        m_r.status = BisectionStatus::Fixed;
        finish();
    }

private:
    void finish() {
        m_r.found = m_haveBest;
        if (m_haveBest) m_r.keptBlocks = names(m_best);
        // Normalised, as every plan shown reads: one rule per path.
        m_r.plan = planWithSafeBlocks(m_failing, m_r.keptBlocks, m_opt.safeFormat).normalised();
        m_r.planText = m_r.plan.toString();
        const std::string safe = formatName(m_opt.safeFormat);
        const size_t n = m_candidates.size();
        const bool oneTrial = m_r.trials.size() == 1;
        const std::vector<std::string> kept = {std::to_string(m_r.keptBlocks.size()),
                                               std::to_string(n), safe,
                                               describeBlocks(m_r.keptBlocks)};
        MessageText& m = m_r.messageText;
        switch (m_r.status) {
            case BisectionStatus::Fixed: {
                std::vector<std::string> args = kept;
                if (!oneTrial) args.push_back(std::to_string(m_r.trials.size()));
                m = {{oneTrial ? "bisection.fixed_one" : "bisection.fixed", args}};
                break;
            }
            case BisectionStatus::CannotFix:
                m = {{"bisection.cannot_fix_open", {std::to_string(n), safe}}};
                m.insert(m.end(), m_r.trials.back().whyMessage.begin(),
                         m_r.trials.back().whyMessage.end());
                m.push_back({"bisection.cannot_fix_close", {}});
                break;
            case BisectionStatus::IterationLimit:
            case BisectionStatus::Cancelled: {
                std::string id = m_r.cancelled() ? "bisection.cancelled" : "bisection.limit";
                if (oneTrial) id += "_one";
                m = {{id, oneTrial ? std::vector<std::string>{}
                                   : std::vector<std::string>{std::to_string(m_r.trials.size())}}};
                if (m_haveBest)
                    m.push_back({"bisection.best_so_far", kept});
                else
                    m.push_back({"bisection.none_passed", {}});
                break;
            }
            case BisectionStatus::NoCandidates:
                m = {{"bisection.no_candidates", {}}};
                break;
        }
        m_r.message = englishText(m);
    }

    const PrecisionPlan& m_failing;
    const std::vector<std::string>& m_candidates;
    const TrialFunction& m_trial;
    const BisectionOptions& m_opt;
    BisectionResult& m_r;
    std::map<std::vector<size_t>, bool> m_cache;
    std::vector<size_t> m_best;
    bool m_haveBest = false;
};

}  // namespace

BisectionResult bisectPrecision(const PrecisionPlan& failing,
                                const std::vector<std::string>& candidates,
                                const TrialFunction& trial, const BisectionOptions& options) {
    BisectionResult r;
    r.safeFormat = options.safeFormat;
    r.tolerance = options.tolerance;
    r.candidates = candidates;
    r.plan = failing;
    r.planText = failing.toString();
    if (candidates.empty()) {
        r.status = BisectionStatus::NoCandidates;
        r.messageText = {{"bisection.no_candidates", {}}};
        r.message = englishText(r.messageText);
        return r;
    }
    Bisector(failing, candidates, trial, options, r).run();
    return r;
}

}  // namespace hs
