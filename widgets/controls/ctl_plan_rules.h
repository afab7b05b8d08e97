#pragma once
// Editing a precision plan one component at a time, as the precision panel's per-component
// choices do, without disturbing finer rules (block-level rules a bisection produced).
#include <optional>
#include <string>
#include <vector>

#include "records/precision_plan.h"

namespace ctl {

// The format the plan gives the component as a whole (its own path), or nullopt when no rule
// covers it (it then runs in its stored dtype).
std::optional<hs::Format> componentFormat(const hs::PrecisionPlan& plan,
                                          const std::string& component);

// The plan with `component`'s own rules (pattern exactly the component name) replaced by one
// rule for `format`, or removed when `format` is nullopt. The new rule goes right after the last
// rule that covers the whole component (such as "*=fp16"), or first when none does, so it wins
// for the component while rules for parts of it (later, more specific) still win for those parts.
hs::PrecisionPlan withComponentFormat(const hs::PrecisionPlan& plan, const std::string& component,
                                      std::optional<hs::Format> format);

// Rules that apply only inside the component ("transformer.transformer_blocks.2=bf16" for
// "transformer"): patterns that do not match the component itself but start with its name + ".".
std::vector<hs::PlanRule> innerRules(const hs::PrecisionPlan& plan, const std::string& component);

}  // namespace ctl
