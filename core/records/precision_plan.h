#pragma once
// A precision plan: ordered rules from module-path patterns to formats.
//   text form: "text_encoder=fp32,transformer=fp16,transformer.single_transformer_blocks.1*=bf16"
// A rule matches a path when its pattern matches the path itself or one of its ancestors
// ("transformer" matches "transformer.transformer_blocks.3.ff"). '*' matches any run of
// characters, dots included. The last matching rule wins.
//
// A rule may also name a remedy instead of a format, the fixes people use in half precision.
// Remedies are off unless a rule asks for them, so a plan reproduces a model's overflow first
// and shows what each remedy changes. What they do to each stored value is PrecisionPolicy's
// (precision_policy.h); every family honours them through it:
//   PATH=clamp          the module's output and the residual stream inside it are clipped to
//                       the format's finite range (diffusers' fp16 clip); a family's own clamp
//                       turns on as well (transformers' T5: +-(65504 - 1000) once an Inf shows);
//   PATH=scale:K        every value the module stores is held at 2^-K of its size and read
//                       back times 2^K (stable-diffusion.cpp's scaled output projections);
//                       exact in binary formats, so a no-op in fp32; K in 1..24;
//   PATH=fp32-residual  the residual stream of the module's blocks stays fp32 while their
//                       sub-layers run in the plan's format (ComfyUI's Cosmos/Anima);
//   PATH=fp8-e4m3, PATH=fp8-e5m2
//                       the module's weights (the 2-D and larger "*weight" tensors: linear,
//                       conv and embedding matrices; biases and norms stay) stored in fp8:
//                       each rounded to the fp8 format with one scale per tensor (its largest
//                       magnitude over the format's largest, 448 or 57344), read back times the
//                       scale, and then held and computed in the module's format, as ComfyUI's
//                       weight_dtype fp8_e4m3fn / fp8_e5m2 loads them; the last such rule wins;
//   PATH=keep-fp32      another name for PATH=fp32 (transformers' _keep_in_fp32_modules: fp32
//                       weights and outputs); it reads back as fp32.
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

enum class Remedy { Clamp, Scale, Fp32Residual, Fp8E4M3, Fp8E5M2 };

struct RemedyRule {
    std::string pattern;
    Remedy kind = Remedy::Clamp;
    int scaleBits = 0;  // K of scale:K
    bool operator==(const RemedyRule& o) const {
        return pattern == o.pattern && kind == o.kind && scaleBits == o.scaleBits;
    }
};
// "clamp", "scale:5", "fp32-residual", "fp8-e4m3", "fp8-e5m2"
std::string remedyText(const RemedyRule& r);

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
    explicit PrecisionPlan(std::vector<PlanRule> rules, std::vector<RemedyRule> remedies = {})
        : m_rules(std::move(rules)), m_remedies(std::move(remedies)) {}

    // Throws PlanParseError naming the position of the first malformed rule.
    static PrecisionPlan parse(const std::string& text);
    // The rules as given, in order (parse(toString()) == *this).
    std::string toString() const;
    // The normalised() plan's text, as every plan shown or suggested reads: one rule per path,
    // e.g. "transformer=fp16,transformer=bf16" reads "transformer=bf16".
    std::string normalisedText() const;
    // The same plan without the rules that can never win: a format rule (or a scale or fp8
    // remedy) is dropped when a later one of its kind matches every path it matches (the same
    // pattern, an ancestor such as "transformer" after "transformer.transformer_blocks.1", or a
    // glob covering it). Clamp and fp32-residual rules all act, so they are all kept.
    PrecisionPlan normalised() const;

    void add(const std::string& pattern, Format f) { m_rules.push_back({pattern, f}); }
    // add(), first dropping earlier rules with the same pattern: the new rule overrides them for
    // every path anyway, so the plan means the same and reads shorter.
    void set(const std::string& pattern, Format f);
    const std::vector<PlanRule>& rules() const { return m_rules; }
    bool empty() const { return m_rules.empty() && m_remedies.empty(); }

    // Remedy rules, in order; adding one that is already there changes nothing.
    void addRemedy(const RemedyRule& r);
    const std::vector<RemedyRule>& remedies() const { return m_remedies; }
    // True when a clamp rule matches `path` or one of its ancestors.
    bool clamps(const std::string& path) const;
    // True when a clamp rule's pattern matches `path` itself (the module's own output).
    bool clampsOutputOf(const std::string& path) const;
    // K of the last scale rule matching `path` or an ancestor; 0 when none does.
    int scaleBits(const std::string& path) const;
    bool keepsResidualFp32(const std::string& path) const;
    // The fp8 format of the last fp8 rule matching `path` or an ancestor (Remedy::Fp8E4M3 or
    // Fp8E5M2); nullopt when none does.
    std::optional<Remedy> fp8Weights(const std::string& path) const;

    // Format of the last rule matching `path`, or nullopt when no rule matches.
    std::optional<Format> resolve(const std::string& path) const;
    Format resolve(const std::string& path, Format fallback) const {
        return resolve(path).value_or(fallback);
    }

    bool operator==(const PrecisionPlan& o) const {
        return m_rules == o.m_rules && m_remedies == o.m_remedies;
    }

private:
    bool anyRemedy(Remedy kind, const std::string& path) const;

    std::vector<PlanRule> m_rules;
    std::vector<RemedyRule> m_remedies;
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
