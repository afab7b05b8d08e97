#include "records/precision_plan.h"

#include <algorithm>
#include <cctype>

namespace hs {

PlanParseError::PlanParseError(const std::string& msg, size_t position, size_t ruleIndex)
    : std::runtime_error("precision plan, rule " + std::to_string(ruleIndex + 1) +
                         " at character " + std::to_string(position + 1) + ": " + msg),
      m_position(position),
      m_ruleIndex(ruleIndex) {}

namespace {

bool validPatternChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '*' ||
           c == '-';
}

// Trims spaces from [b, e) in place.
void trim(const std::string& s, size_t& b, size_t& e) {
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
}

RemedyRule parseRemedy(const std::string& pattern, const std::string& value, size_t at,
                       size_t index) {
    if (value == "clamp") return {pattern, Remedy::Clamp, 0};
    if (value == "fp32-residual") return {pattern, Remedy::Fp32Residual, 0};
    if (value == "fp8-e4m3") return {pattern, Remedy::Fp8E4M3, 0};
    if (value == "fp8-e5m2") return {pattern, Remedy::Fp8E5M2, 0};
    if (value.rfind("scale:", 0) == 0) {
        const std::string k = value.substr(6);
        const bool digits =
            !k.empty() && k.size() <= 2 &&
            std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int bits = digits ? std::stoi(k) : 0;
        if (bits < 1 || bits > 24)
            throw PlanParseError(
                "scale needs a power-of-two exponent K from 1 to 24 (scale:K "
                "divides the module's values by 2^K), not '" +
                    k.substr(0, 20) + "'",
                at + 6, index);
        return {pattern, Remedy::Scale, bits};
    }
    throw PlanParseError("unknown format '" + value.substr(0, 40) +
                             "' (use fp32, bf16, fp16 or tf32, a remedy: clamp, scale:K, "
                             "fp32-residual, keep-fp32, or fp8 weights: fp8-e4m3, fp8-e5m2)",
                         at, index);
}

}  // namespace

std::string remedyText(const RemedyRule& r) {
    switch (r.kind) {
        case Remedy::Clamp:
            return "clamp";
        case Remedy::Scale:
            return "scale:" + std::to_string(r.scaleBits);
        case Remedy::Fp32Residual:
            return "fp32-residual";
        case Remedy::Fp8E4M3:
            return "fp8-e4m3";
        case Remedy::Fp8E5M2:
            return "fp8-e5m2";
    }
    return "";
}

void PrecisionPlan::set(const std::string& pattern, Format f) {
    std::vector<PlanRule> kept;
    for (auto& r : m_rules)
        if (r.pattern != pattern) kept.push_back(std::move(r));
    m_rules = std::move(kept);
    add(pattern, f);
}

PrecisionPlan PrecisionPlan::parse(const std::string& text) {
    PrecisionPlan plan;
    size_t b0 = 0, e0 = text.size();
    trim(text, b0, e0);
    if (b0 == e0) return plan;
    size_t start = 0;
    size_t index = 0;
    while (true) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        size_t b = start, e = end;
        trim(text, b, e);
        if (b == e) throw PlanParseError("empty rule (expected pattern=format)", b, index);
        size_t eq = text.find('=', b);
        if (eq == std::string::npos || eq >= e)
            throw PlanParseError("missing '=' (expected pattern=format)", b, index);
        size_t pb = b, pe = eq;
        trim(text, pb, pe);
        if (pb == pe) throw PlanParseError("empty module pattern", b, index);
        for (size_t i = pb; i < pe; ++i) {
            if (!validPatternChar(text[i]))
                throw PlanParseError(
                    std::string("invalid character '") + text[i] + "' in module pattern", i, index);
        }
        size_t fb = eq + 1, fe = e;
        trim(text, fb, fe);
        const std::string pattern = text.substr(pb, pe - pb);
        const std::string value = text.substr(fb, fe - fb);
        if (auto fmt = parseFormat(value == "keep-fp32" ? "fp32" : value))
            plan.m_rules.push_back({pattern, *fmt});
        else
            plan.addRemedy(parseRemedy(pattern, value, fb, index));
        ++index;
        if (end == text.size()) break;
        start = end + 1;
    }
    return plan;
}

std::string PrecisionPlan::toString() const {
    std::string s;
    for (const auto& r : m_rules)
        s += (s.empty() ? "" : ",") + r.pattern + '=' + formatName(r.format);
    for (const auto& r : m_remedies) s += (s.empty() ? "" : ",") + r.pattern + '=' + remedyText(r);
    return s;
}

std::string PrecisionPlan::normalisedText() const {
    return normalised().toString();
}

namespace {

// True when every path `inner` matches, `outer` matches too. A path never holds '*', so when
// `outer` matches `inner`'s text with its stars read as characters, outer's own stars took them
// and take whatever they stand for in a path just as well.
bool covers(const std::string& outer, const std::string& inner) {
    return pathMatches(outer, inner);
}

// Whether a later remedy `later` makes `earlier` one that never wins: scale and fp8 rules are
// read last-match-first (scaleBits, fp8Weights); clamp and fp32-residual rules all act.
bool overrides(const RemedyRule& later, const RemedyRule& earlier) {
    const auto fp8 = [](Remedy k) { return k == Remedy::Fp8E4M3 || k == Remedy::Fp8E5M2; };
    const bool sameKind = (later.kind == Remedy::Scale && earlier.kind == Remedy::Scale) ||
                          (fp8(later.kind) && fp8(earlier.kind));
    return sameKind && covers(later.pattern, earlier.pattern);
}

}  // namespace

PrecisionPlan PrecisionPlan::normalised() const {
    PrecisionPlan n;
    for (size_t i = 0; i < m_rules.size(); ++i) {
        bool shadowed = false;
        for (size_t j = i + 1; j < m_rules.size() && !shadowed; ++j)
            shadowed = covers(m_rules[j].pattern, m_rules[i].pattern);
        if (!shadowed) n.m_rules.push_back(m_rules[i]);
    }
    for (size_t i = 0; i < m_remedies.size(); ++i) {
        bool shadowed = false;
        for (size_t j = i + 1; j < m_remedies.size() && !shadowed; ++j)
            shadowed = overrides(m_remedies[j], m_remedies[i]);
        if (!shadowed) n.m_remedies.push_back(m_remedies[i]);
    }
    return n;
}

void PrecisionPlan::addRemedy(const RemedyRule& r) {
    if (std::find(m_remedies.begin(), m_remedies.end(), r) == m_remedies.end())
        m_remedies.push_back(r);
}

bool PrecisionPlan::anyRemedy(Remedy kind, const std::string& path) const {
    for (const auto& r : m_remedies)
        if (r.kind == kind && pathMatches(r.pattern, path)) return true;
    return false;
}

bool PrecisionPlan::clamps(const std::string& path) const {
    return anyRemedy(Remedy::Clamp, path);
}

bool PrecisionPlan::clampsOutputOf(const std::string& path) const {
    for (const auto& r : m_remedies)
        if (r.kind == Remedy::Clamp && globMatch(r.pattern, path)) return true;
    return false;
}

bool PrecisionPlan::keepsResidualFp32(const std::string& path) const {
    return anyRemedy(Remedy::Fp32Residual, path);
}

std::optional<Remedy> PrecisionPlan::fp8Weights(const std::string& path) const {
    for (auto it = m_remedies.rbegin(); it != m_remedies.rend(); ++it)
        if ((it->kind == Remedy::Fp8E4M3 || it->kind == Remedy::Fp8E5M2) &&
            pathMatches(it->pattern, path))
            return it->kind;
    return std::nullopt;
}

int PrecisionPlan::scaleBits(const std::string& path) const {
    for (auto it = m_remedies.rbegin(); it != m_remedies.rend(); ++it)
        if (it->kind == Remedy::Scale && pathMatches(it->pattern, path)) return it->scaleBits;
    return 0;
}

bool globMatch(const std::string& p, const std::string& t) {
    // Iterative matcher with backtracking to the last star: O(|p|·|t|) worst case.
    size_t pi = 0, ti = 0, star = std::string::npos, mark = 0;
    while (ti < t.size()) {
        if (pi < p.size() && p[pi] == '*') {
            star = pi++;
            mark = ti;
        } else if (pi < p.size() && p[pi] == t[ti]) {
            ++pi;
            ++ti;
        } else if (star != std::string::npos) {
            pi = star + 1;
            ti = ++mark;
        } else {
            return false;
        }
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
}

bool pathMatches(const std::string& pattern, const std::string& path) {
    if (globMatch(pattern, path)) return true;
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
        if (globMatch(pattern, path.substr(0, dot))) return true;
    }
    return false;
}

std::optional<Format> PrecisionPlan::resolve(const std::string& path) const {
    for (auto it = m_rules.rbegin(); it != m_rules.rend(); ++it) {
        if (pathMatches(it->pattern, path)) return it->format;
    }
    return std::nullopt;
}

PrecisionPlan effectivePlan(const std::vector<std::pair<std::string, Format>>& storedFormats,
                            const PrecisionPlan& user) {
    PrecisionPlan p;
    for (const auto& [component, format] : storedFormats) p.add(component, format);
    for (const auto& r : user.rules()) p.set(r.pattern, r.format);
    for (const auto& r : user.remedies()) p.addRemedy(r);
    return p;
}

}  // namespace hs
