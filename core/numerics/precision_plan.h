#pragma once
// A precision plan: ordered rules from module-path patterns to formats.
//   text form: "text_encoder=fp32,transformer=fp16,transformer.single_transformer_blocks.1*=bf16"
// A rule matches a path when its pattern matches the path itself or one of its ancestors
// ("transformer" matches "transformer.transformer_blocks.3.ff"). '*' matches any run of
// characters, dots included. The last matching rule wins.
//
// A rule may also name a remedy instead of a format: "text_encoder_2=clamp" turns on the fp16
// clamps a model family has (transformers' T5 clamps its residual stream to +-(65504 - 1000)
// once it holds an Inf) inside the modules the pattern matches. Remedies are off unless a rule
// asks for them, so a plan reproduces a model's overflow first and shows what each remedy
// changes.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "records/format_types.h"

namespace hs {

struct PlanRule {
    std::string pattern;
    Format format;
    bool operator==(const PlanRule& o) const { return pattern == o.pattern && format == o.format; }
};

class PlanParseError : public std::runtime_error {
public:
    PlanParseError(const std::string& msg, size_t position, size_t ruleIndex);
    size_t position() const { return m_position; }    // 0-based character offset in the text
    size_t ruleIndex() const { return m_ruleIndex; }  // 0-based rule number
private:
    size_t m_position;
    size_t m_ruleIndex;
};

class PrecisionPlan {
public:
    PrecisionPlan() = default;
    explicit PrecisionPlan(std::vector<PlanRule> rules, std::vector<std::string> clamps = {})
        : m_rules(std::move(rules)), m_clamps(std::move(clamps)) {}

    // Throws PlanParseError naming the position of the first malformed rule.
    static PrecisionPlan parse(const std::string& text);
    std::string toString() const;

    void add(const std::string& pattern, Format f) { m_rules.push_back({pattern, f}); }
    // add(), first dropping earlier rules with the same pattern: the new rule overrides them for
    // every path anyway, so the plan means the same and reads shorter.
    void set(const std::string& pattern, Format f);
    const std::vector<PlanRule>& rules() const { return m_rules; }
    bool empty() const { return m_rules.empty() && m_clamps.empty(); }

    // "pattern=clamp" rules, in order.
    void addClamp(const std::string& pattern);
    const std::vector<std::string>& clamps() const { return m_clamps; }
    // True when a clamp rule matches `path` or one of its ancestors.
    bool clamps(const std::string& path) const;

    // Format of the last rule matching `path`, or nullopt when no rule matches.
    std::optional<Format> resolve(const std::string& path) const;
    Format resolve(const std::string& path, Format fallback) const {
        return resolve(path).value_or(fallback);
    }

    bool operator==(const PrecisionPlan& o) const {
        return m_rules == o.m_rules && m_clamps == o.m_clamps;
    }

private:
    std::vector<PlanRule> m_rules;
    std::vector<std::string> m_clamps;
};

// The plan a pipeline runs: one rule per component giving its stored format, then the user's
// rules (set(): a user rule with a component's own pattern replaces its default) and remedies.
// The engine, the CLI and the studio all build it here.
PrecisionPlan effectivePlan(const std::vector<std::pair<std::string, Format>>& storedFormats,
                            const PrecisionPlan& user);

// Glob match with '*' only; exposed for tests.
bool globMatch(const std::string& pattern, const std::string& text);
// True when `pattern` matches `path` or an ancestor path of it (prefix ending at a '.').
bool pathMatches(const std::string& pattern, const std::string& path);

}  // namespace hs
