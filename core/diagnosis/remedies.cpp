#include "diagnosis/remedies.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "base/enum_names.h"
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
    return englishText(remedyActionMessage(c));
}

MessageText remedyActionMessage(const RemedyCandidate& c) {
    // Components: "the whole transformer and vae" (the template says "the whole"); blocks:
    // "transformer_blocks 0-1".
    const bool whole = c.scope == "component";
    std::string where;
    if (whole) {
        for (const auto& m : c.modules) where += (where.empty() ? "" : " and ") + m;
    } else {
        where = describeBlocks(c.modules);
    }
    const std::string w = whole ? "_whole" : "";
    switch (c.kind) {
        case RemedyKind::Format:
            return {{"remedy.action.format" + w, {where, formatName(c.format)}}};
        case RemedyKind::Clamp:
            return {{"remedy.action.clamp" + w, {where}}};
        case RemedyKind::Scale:
            return {{"remedy.action.scale" + w, {where, std::to_string(c.scaleBits)}}};
        case RemedyKind::Fp32Residual:
            return {{"remedy.action.fp32_residual" + w, {where}}};
    }
    return {{"remedy.action.format" + w, {where, formatName(c.format)}}};
}

std::string remedyKindName(RemedyKind k) {
    static constexpr EnumName<RemedyKind> names[] = {{RemedyKind::Format, "format"},
                                                     {RemedyKind::Clamp, "clamp"},
                                                     {RemedyKind::Scale, "scale"},
                                                     {RemedyKind::Fp32Residual, "fp32-residual"}};
    return nameIn(names, k, "");
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
                    r.costMessage = {
                        {target.bf16Cheap() ? "remedy.cost.bf16_fast" : "remedy.cost.bf16_slow",
                         {}}};
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
                    r.costMessage = {{"remedy.cost.fp32", {fixed(r.extraWeightMB, 1)}}};
                    if (target.fp16Fast())
                        r.costMessage.push_back({"remedy.cost.fp32_tensor_cores", {}});
                }
                break;
            case RemedyKind::Clamp:
                r.costScore = 0.01;
                r.costMessage = {{"remedy.cost.clamp", {}}};
                break;
            case RemedyKind::Scale:
                r.costScore = 0.02;
                r.costMessage = {{"remedy.cost.scale", {std::to_string(c.scaleBits)}}};
                break;
            case RemedyKind::Fp32Residual:
                r.costScore = 0.05;
                r.costMessage = {{"remedy.cost.fp32_residual", {}}};
                break;
        }
    }
    // On a target of known memory: do the model's weights under the row's plan fit?
    double baseBytes = 0;
    for (const auto& comp : components)
        baseBytes += double(comp.parameters) * (storesFp32(comp.format) ? 4 : 2);
    if (target.memoryGB > 0 && baseBytes > 0)
        for (RemedyRow& r : t.rows) {
            const double gb = (baseBytes + r.extraWeightMB * 1e6) / 1e9;
            const bool fits = gb <= target.memoryGB;
            r.costMessage.push_back(
                {fits ? "remedy.cost.weights_within" : "remedy.cost.weights_over",
                 {fixed(gb, gb < 10 ? 2 : 1), fixed(target.memoryGB, 0)}});
            r.fits = fits;
        }
    for (RemedyRow& r : t.rows) r.cost = englishText(r.costMessage);
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
        t.messageText = {{"remedy.message.none_tried", {}}};
    } else if (passing == 0) {
        t.messageText = {
            {"remedy.message.none_pass", {std::to_string(t.rows.size()), t.referencePlan}}};
    } else {
        const RemedyRow& best = t.rows.front();
        // The best row's action, then what it did.
        t.messageText = remedyActionMessage(best.candidate);
        t.messageText.push_back({"remedy.message.best", {fixed(best.outcome.difference, 4)}});
        if (std::isfinite(best.psnr))
            t.messageText.push_back({"remedy.message.psnr", {fixed(best.psnr, 1)}});
        t.messageText.push_back(
            {"remedy.message.passing", {std::to_string(passing), std::to_string(t.rows.size())}});
    }
    t.message = englishText(t.messageText);
}

}  // namespace hs
