#include "diagnosis/remedies.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "diagnosis/blocks.h"

namespace hs {

namespace {

constexpr RemedyKind kAllKinds[] = {RemedyKind::Format, RemedyKind::Clamp, RemedyKind::Scale,
                                    RemedyKind::Fp32Residual};

std::string fixed(double v, int digits) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(digits);
    s << v;
    return s.str();
}

std::vector<std::string> componentsOf(const std::vector<std::string>& blocks) {
    std::vector<std::string> out;
    for (const auto& b : blocks)
        if (std::find(out.begin(), out.end(), componentOf(b)) == out.end())
            out.push_back(componentOf(b));
    return out;
}

RemedyCandidate withRules(const PrecisionPlan& failing, RemedyKind kind, std::string scope,
                          const std::vector<std::string>& modules,
                          const std::function<double(const std::string&)>& absMaxOf) {
    RemedyCandidate c;
    c.kind = kind;
    c.scope = std::move(scope);
    c.modules = modules;
    c.plan = failing;
    for (const auto& m : modules) {
        RemedyRule r{m, Remedy::Clamp, 0};
        if (kind == RemedyKind::Scale) {
            r.kind = Remedy::Scale;
            r.scaleBits = scaleBitsFor(absMaxOf ? absMaxOf(m) : 0);
            c.scaleBits = std::max(c.scaleBits, r.scaleBits);
        } else if (kind == RemedyKind::Fp32Residual) {
            r.kind = Remedy::Fp32Residual;
        }
        c.plan.addRemedy(r);
    }
    c.changes = int(modules.size());
    return c;
}

}  // namespace

std::string remedyAction(const RemedyCandidate& c) {
    std::string where;
    if (c.scope == "component") {
        for (const auto& m : c.modules) where += (where.empty() ? "the whole " : " and ") + m;
    } else {
        where = describeBlocks(c.modules);
    }
    switch (c.kind) {
        case RemedyKind::Format:
            return where + " in " + formatName(c.format);
        case RemedyKind::Clamp:
            return "clamp " + where;
        case RemedyKind::Scale:
            return "scale " + where + " by 2^-" + std::to_string(c.scaleBits);
        case RemedyKind::Fp32Residual:
            return "fp32 residual stream in " + where;
    }
    return where;
}

std::string remedyKindName(RemedyKind k) {
    switch (k) {
        case RemedyKind::Format:
            return "format";
        case RemedyKind::Clamp:
            return "clamp";
        case RemedyKind::Scale:
            return "scale";
        case RemedyKind::Fp32Residual:
            return "fp32-residual";
    }
    return "";
}

std::vector<RemedyKind> parseRemedyKinds(const std::string& text) {
    std::vector<RemedyKind> out;
    std::stringstream in(text);
    std::string item;
    const std::string accepted = " (accepted: format, clamp, scale, fp32-residual)";
    if (!text.empty() && text.back() == ',')
        throw std::invalid_argument("empty remedy name" + accepted);
    while (std::getline(in, item, ',')) {
        const auto b = item.find_first_not_of(' ');
        const auto e = item.find_last_not_of(' ');
        item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
        bool known = false;
        for (RemedyKind k : kAllKinds)
            if (remedyKindName(k) == item) {
                if (std::find(out.begin(), out.end(), k) != out.end())
                    throw std::invalid_argument("remedy '" + item + "' is named twice");
                out.push_back(k);
                known = true;
            }
        if (!known)
            throw std::invalid_argument((item.empty()
                                             ? std::string("empty remedy name")
                                             : "unknown remedy '" + item.substr(0, 40) + "'") +
                                        accepted);
    }
    if (out.empty()) throw std::invalid_argument("no remedy named" + accepted);
    return out;
}

int scaleBitsFor(double absMax) {
    if (std::isnan(absMax) || absMax <= 0) return 1;
    if (std::isinf(absMax)) return 24;
    const int k = int(std::ceil(std::log2(absMax / (kFp16Max / 2))));
    return std::clamp(k, 1, 24);
}

std::vector<RemedyCandidate> remedyCandidates(
    const PrecisionPlan& failing, const std::vector<std::string>& failingBlocks,
    const std::vector<RemedyKind>& kinds,
    const std::function<double(const std::string&)>& absMaxOf) {
    std::vector<RemedyCandidate> out;
    if (failingBlocks.empty()) return out;
    for (RemedyKind kind : kinds) {
        if (kind == RemedyKind::Format) {
            for (Format f : {Format::BF16, Format::FP32}) {
                RemedyCandidate c;
                c.kind = kind;
                c.scope = "blocks";
                c.modules = failingBlocks;
                c.format = f;
                c.changes = int(failingBlocks.size());
                c.plan = planWithSafeBlocks(failing, failingBlocks, f);
                out.push_back(std::move(c));
            }
            continue;
        }
        out.push_back(withRules(failing, kind, "blocks", failingBlocks, absMaxOf));
        out.push_back(withRules(failing, kind, "component", componentsOf(failingBlocks), absMaxOf));
    }
    return out;
}

bool RemedyTable::anyPassed() const {
    return std::any_of(rows.begin(), rows.end(), [](const RemedyRow& r) { return r.passed; });
}

double psnrFromMse(double mse) {
    if (!(mse > 0)) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(255.0 * 255.0 / mse);
}

void rankRemedies(RemedyTable& t, const DeviceInfo& target,
                  const std::vector<ComponentInfo>& components,
                  const std::function<int(const std::string&)>& blocksOf) {
    t.target = target.describe();
    for (RemedyRow& r : t.rows) {
        const RemedyCandidate& c = r.candidate;
        r.fits = true;
        switch (c.kind) {
            case RemedyKind::Format:
                if (c.format == Format::BF16) {
                    r.costScore = target.bf16Cheap() ? 0.1 : 3.0;
                    r.cost = target.bf16Cheap()
                                 ? "no extra memory; bf16 runs at full speed there"
                                 : "no extra memory, but bf16 runs slowly there (no bf16 tensor "
                                   "cores below compute capability 8.0)";
                } else {
                    double params = 0;
                    for (const auto& comp : components) {
                        int mine = 0;
                        for (const auto& m : c.modules) mine += componentOf(m) == comp.name;
                        const int total = blocksOf ? blocksOf(comp.name) : 0;
                        if (mine > 0 && total > 0)
                            params += double(comp.parameters) * std::min(1.0, double(mine) / total);
                    }
                    r.extraWeightMB = params * 2 / 1e6;
                    r.costScore = target.fp16Fast() ? 2.0 : 0.5;
                    r.cost = "+" + fixed(r.extraWeightMB, 1) +
                             " MB of weights (blocks of equal size assumed)" +
                             (target.fp16Fast() ? "; these blocks lose fp16 tensor cores" : "");
                }
                break;
            case RemedyKind::Clamp:
                r.costScore = 0.01;
                r.cost = "no memory; one clip per output, negligible time";
                break;
            case RemedyKind::Scale:
                r.costScore = 0.02;
                r.cost = "no memory; two exact multiplications by 2^" +
                         std::to_string(c.scaleBits) + " per value, negligible time";
                break;
            case RemedyKind::Fp32Residual:
                r.costScore = 0.05;
                r.cost =
                    "no weight memory; the residual stream's activations take twice the "
                    "memory, a cast per sub-layer";
                break;
        }
    }
    // On a target of known memory: do the model's weights under the row's plan fit?
    double baseBytes = 0;
    for (const auto& comp : components)
        baseBytes += double(comp.parameters) * (comp.format == Format::FP32 ? 4 : 2);
    if (target.memoryGB > 0 && baseBytes > 0)
        for (RemedyRow& r : t.rows) {
            const double gb = (baseBytes + r.extraWeightMB * 1e6) / 1e9;
            const bool fits = gb <= target.memoryGB;
            r.cost += "; the model's weights: " + fixed(gb, gb < 10 ? 2 : 1) + " GB, " +
                      (fits ? "within" : "more than") + " its " + fixed(target.memoryGB, 0) + " GB";
            r.fits = fits;
        }
    auto bucket = [](double d) { return std::isnan(d) ? 1e9 : std::floor(d / 0.001); };
    std::stable_sort(t.rows.begin(), t.rows.end(), [&](const RemedyRow& a, const RemedyRow& b) {
        if (a.passed != b.passed) return a.passed;
        if (a.fits != b.fits) return a.fits;
        if (a.candidate.changes != b.candidate.changes)
            return a.candidate.changes < b.candidate.changes;
        const double da = bucket(a.outcome.difference), db = bucket(b.outcome.difference);
        if (da != db) return da < db;
        return a.costScore < b.costScore;
    });
    int passing = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        t.rows[i].rank = int(i) + 1;
        passing += t.rows[i].passed;
    }
    if (t.rows.empty()) {
        t.message = "no remedy was tried: no failing block was found";
    } else if (passing == 0) {
        t.message = "none of the " + std::to_string(t.rows.size()) +
                    " remedies tried makes the run right (finite and within tolerance of " +
                    t.referencePlan + ")";
    } else {
        const RemedyRow& best = t.rows.front();
        t.message =
            remedyAction(best.candidate) + " fixes the run with the fewest changes: image " +
            "difference " + fixed(best.outcome.difference, 4) + " to the reference" +
            (std::isfinite(best.psnr) ? " (PSNR " + fixed(best.psnr, 1) + " dB)" : "") + "; " +
            std::to_string(passing) + " of " + std::to_string(t.rows.size()) + " remedies pass";
    }
}

}  // namespace hs
