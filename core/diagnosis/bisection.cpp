#include "diagnosis/bisection.h"

#include <cmath>
#include <exception>
#include <map>
#include <optional>
#include <sstream>

#include "base/cancel.h"  // Cancelled only: header-only, no engine
#include "base/enum_names.h"
#include "diagnosis/blocks.h"

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

bool trialPasses(const TrialOutcome& o, double tolerance, std::string* why) {
    std::ostringstream s;
    bool pass = false;
    if (!o.error.empty()) {
        s << "the trial did not run: " << o.error;
    } else if (!o.allFinite || o.nonFinite > 0) {
        s << o.nonFinite << " non-finite values";
        if (!o.verdict.empty()) s << " (verdict " << o.verdict << ")";
    } else if (!o.verdict.empty() && o.verdict != "ok") {
        s << "all finite but the image is " << o.verdict;
    } else if (!std::isnan(o.difference) && !(o.difference <= tolerance)) {
        s << "difference " << o.difference << " to the reference is above the tolerance "
          << tolerance;
    } else {
        pass = true;
        s << "passes: all finite";
        if (!o.verdict.empty()) s << ", verdict " << o.verdict;
        if (!std::isnan(o.difference)) s << ", difference " << o.difference << " <= " << tolerance;
    }
    if (why) *why = s.str();
    return pass;
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
        t.passed = trialPasses(t.outcome, m_opt.tolerance, &t.why);
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
        std::ostringstream s;
        const std::string safe = formatName(m_opt.safeFormat);
        const size_t n = m_candidates.size();
        const std::string trials =
            std::to_string(m_r.trials.size()) + (m_r.trials.size() == 1 ? " trial" : " trials");
        const std::string kept = std::to_string(m_r.keptBlocks.size()) + " of " +
                                 std::to_string(n) + " blocks in " + safe + " (" +
                                 describeBlocks(m_r.keptBlocks) + ")";
        switch (m_r.status) {
            case BisectionStatus::Fixed:
                s << "keeping " << kept << " fixes the run; found in " << trials;
                break;
            case BisectionStatus::CannotFix:
                s << "even with all " << n << " candidate blocks in " << safe << " the run fails ("
                  << m_r.trials.back().why << "): the cause lies outside these blocks";
                break;
            case BisectionStatus::IterationLimit:
            case BisectionStatus::Cancelled:
                s << (m_r.cancelled() ? "cancelled" : "stopped at the limit") << " after "
                  << trials;
                if (m_haveBest)
                    s << "; the smallest passing set so far keeps " << kept
                      << " and may not be minimal";
                else
                    s << " before any plan passed";
                break;
            case BisectionStatus::NoCandidates:
                s << "no candidate blocks to bisect";
                break;
        }
        m_r.message = s.str();
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
        r.message = "no candidate blocks to bisect";
        return r;
    }
    Bisector(failing, candidates, trial, options, r).run();
    return r;
}

}  // namespace hs
