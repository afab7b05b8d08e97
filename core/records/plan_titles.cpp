#include "records/plan_titles.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace hs {

namespace {

// A plan read per module pattern: the format of its last rule and its remedies by kind.
struct PatternEntries {
    std::optional<Format> format;
    std::map<Remedy, std::string> remedies;  // kind -> "clamp", "scale:5" (the last one)
};

struct PlanEntries {
    std::vector<std::string> order;  // patterns in the order the plan names them
    std::map<std::string, PatternEntries> byPattern;

    PatternEntries& at(const std::string& pattern) {
        if (!byPattern.count(pattern)) order.push_back(pattern);
        return byPattern[pattern];
    }
    const PatternEntries* find(const std::string& pattern) const {
        auto it = byPattern.find(pattern);
        return it == byPattern.end() ? nullptr : &it->second;
    }
};

PlanEntries entriesOf(const PrecisionPlan& plan) {
    PlanEntries e;
    for (const auto& r : plan.rules()) e.at(r.pattern).format = r.format;
    for (const auto& r : plan.remedies()) e.at(r.pattern).remedies[r.kind] = remedyText(r);
    return e;
}

const Remedy kRemedies[] = {Remedy::Clamp, Remedy::Scale, Remedy::Fp32Residual};

std::string formatValue(const PlanEntries& e, const std::string& pattern) {
    const PatternEntries* p = e.find(pattern);
    return p && p->format ? formatName(*p->format) : std::string();
}

std::string remedyValue(const PlanEntries& e, const std::string& pattern, Remedy kind) {
    const PatternEntries* p = e.find(pattern);
    if (!p) return {};
    auto it = p->remedies.find(kind);
    return it == p->remedies.end() ? std::string() : it->second;
}

// What differs at one pattern between the plans.
struct Difference {
    std::string pattern;
    bool format = false;
    std::vector<Remedy> remedies;
    bool any() const { return format || !remedies.empty(); }
};

template <class F>
bool allEqual(const std::vector<PlanEntries>& plans, F value) {
    for (size_t i = 1; i < plans.size(); ++i)
        if (value(plans[i]) != value(plans[0])) return false;
    return true;
}

// One (pattern, text) per part; parts with the same text share it, groups in first-seen
// order; a single bare format over every pattern of a plan without remedies stands alone.
std::string joinParts(const std::vector<std::pair<std::string, std::string>>& parts,
                      bool wholePlanOneFormat) {
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // text -> patterns
    for (const auto& part : parts) {
        const std::string& pattern = part.first;
        const std::string& text = part.second;  // a plain reference: lambdas capture it in C++17
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const auto& g) { return g.first == text; });
        if (it == groups.end())
            groups.push_back({text, {pattern}});
        else
            it->second.push_back(pattern);
    }
    if (groups.size() == 1 && groups[0].second.size() >= 2 && wholePlanOneFormat)
        return groups[0].first;
    std::string out;
    for (const auto& [text, patterns] : groups) {
        if (!out.empty()) out += "; ";
        for (size_t i = 0; i < patterns.size(); ++i) out += (i ? ", " : "") + patterns[i];
        out += " " + text;
    }
    return out;
}

std::set<std::string> patternSet(const PlanEntries& e) {
    return {e.order.begin(), e.order.end()};
}

// True when the plan gives one format to the whole model and has no remedies: to each of the
// model's components when they are known, else to the same patterns as every plan compared.
bool wholeModelOneFormat(const PrecisionPlan& plan, const PlanEntries& e,
                         const std::vector<PlanEntries>& all,
                         const std::vector<std::string>& components) {
    if (!plan.remedies().empty() || e.order.size() < 2) return false;
    for (const auto& r : plan.rules())
        if (r.format != plan.rules().front().format) return false;
    if (!components.empty())
        return patternSet(e) == std::set<std::string>(components.begin(), components.end());
    if (all.size() < 2) return false;
    for (const auto& other : all)
        if (patternSet(other) != patternSet(e)) return false;
    return true;
}

std::string describe(const PlanEntries& e, const std::string& pattern, bool withFormat,
                     const std::vector<Remedy>& remedies) {
    std::string text = withFormat ? formatValue(e, pattern) : std::string();
    for (Remedy k : remedies) {
        const std::string r = remedyValue(e, pattern, k);
        if (!r.empty()) text += (text.empty() ? "" : " + ") + r;
    }
    return text;
}

}  // namespace

namespace {

std::string summaryOf(const PrecisionPlan& plan, const PlanEntries& e,
                      const std::vector<PlanEntries>& all, const PlanTitleOptions& o) {
    if (plan.empty()) return o.storedDtypes;
    std::vector<std::pair<std::string, std::string>> parts;
    for (const auto& pattern : e.order)
        parts.push_back(
            {pattern, describe(e, pattern, true, {std::begin(kRemedies), std::end(kRemedies)})});
    return joinParts(parts, wholeModelOneFormat(plan, e, all, o.components));
}

}  // namespace

std::string planSummary(const PrecisionPlan& plan, const PlanTitleOptions& o) {
    return summaryOf(plan, entriesOf(plan), {}, o);
}

std::vector<std::string> planTitles(const std::vector<PrecisionPlan>& plans,
                                    const PlanTitleOptions& o) {
    std::vector<PlanEntries> entries;
    for (const auto& p : plans) entries.push_back(entriesOf(p));

    // Patterns in first-seen order over all plans, then what differs at each.
    std::vector<std::string> patterns;
    for (const auto& e : entries)
        for (const auto& p : e.order)
            if (std::find(patterns.begin(), patterns.end(), p) == patterns.end())
                patterns.push_back(p);
    std::vector<Difference> diffs;
    for (const auto& pattern : patterns) {
        Difference d{pattern, false, {}};
        d.format =
            !allEqual(entries, [&](const PlanEntries& e) { return formatValue(e, pattern); });
        for (Remedy k : kRemedies)
            if (!allEqual(entries,
                          [&](const PlanEntries& e) { return remedyValue(e, pattern, k); }))
                d.remedies.push_back(k);
        if (d.any()) diffs.push_back(d);
    }

    std::vector<std::string> titles;
    for (size_t i = 0; i < plans.size(); ++i) {
        const PlanEntries& e = entries[i];
        if (diffs.empty() || plans[i].empty()) {  // identical plans, or the stored dtypes
            titles.push_back(summaryOf(plans[i], e, entries, o));
            continue;
        }
        // The plan's format at a pattern that differs in any way, then its differing remedies.
        std::vector<std::pair<std::string, std::string>> parts;
        for (const auto& d : diffs) {
            const std::string text = describe(e, d.pattern, true, d.remedies);
            if (!text.empty()) parts.push_back({d.pattern, text});
        }
        if (parts.empty()) {
            // None of the differing entries: name what it leaves at the stored dtype.
            for (const auto& d : diffs)
                if (d.format) parts.push_back({d.pattern, o.stored});
        }
        titles.push_back(
            parts.empty()
                ? summaryOf(plans[i], e, entries, o)
                : joinParts(parts, parts.size() == e.order.size() &&
                                       wholeModelOneFormat(plans[i], e, entries, o.components)));
    }

    // Equal titles (identical plans, or plans that mean the same) get their rank among them.
    std::vector<std::string> numbered = titles;
    for (size_t i = 0; i < titles.size(); ++i) {
        const auto same = std::count(titles.begin(), titles.end(), titles[i]);
        if (same < 2) continue;
        const auto rank = std::count(titles.begin(), titles.begin() + long(i), titles[i]) + 1;
        numbered[i] = titles[i] + " #" + std::to_string(rank);
    }
    return numbered;
}

}  // namespace hs
