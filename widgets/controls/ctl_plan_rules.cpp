#include "ctl_plan_rules.h"

namespace ctl {

std::optional<hs::Format> componentFormat(const hs::PrecisionPlan& plan,
                                          const std::string& component) {
    return plan.resolve(component);
}

hs::PrecisionPlan withComponentFormat(const hs::PrecisionPlan& plan, const std::string& component,
                                      std::optional<hs::Format> format) {
    std::vector<hs::PlanRule> rules;
    for (const auto& r : plan.rules())
        if (r.pattern != component) rules.push_back(r);
    if (format) {
        size_t at = 0;
        for (size_t i = 0; i < rules.size(); ++i)
            if (hs::pathMatches(rules[i].pattern, component)) at = i + 1;
        rules.insert(rules.begin() + long(at), hs::PlanRule{component, *format});
    }
    return hs::PrecisionPlan(std::move(rules), plan.remedies());
}

std::vector<hs::PlanRule> innerRules(const hs::PrecisionPlan& plan, const std::string& component) {
    std::vector<hs::PlanRule> out;
    const std::string prefix = component + ".";
    for (const auto& r : plan.rules())
        if (!hs::pathMatches(r.pattern, component) && r.pattern.rfind(prefix, 0) == 0)
            out.push_back(r);
    return out;
}

}  // namespace ctl
