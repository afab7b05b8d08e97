#include "diagnosis/advice.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "diagnosis/blocks.h"

namespace hs {

namespace {

std::string fmtNumber(double v, int precision = 3) {
    std::ostringstream s;
    s.precision(precision);
    s << v;
    return s.str();
}

// How a sentence names component `c`: by its role where that has a common name.
std::string componentWords(const std::vector<ComponentInfo>& components, const std::string& c) {
    switch (roleOf(components, c)) {
        case Role::Vae:
            return "VAE";
        case Role::TextEncoder:
            return "text encoder";
        case Role::TextEncoder2:
            return "text encoder 2";
        default:
            return c;
    }
}

// "run the transformer and VAE in bf16": one template per list length, so that a translation
// words the list itself; a list of four or more joins its first names with " and " in English.
Message componentAction(std::vector<std::string> words, const std::string& format) {
    while (words.size() > 3) {
        words[words.size() - 2] += " and " + words.back();
        words.pop_back();
    }
    static const char* const ids[] = {"advice.action.component", "advice.action.components2",
                                      "advice.action.components3"};
    const char* id = ids[std::max<size_t>(words.size(), 1) - 1];
    words.push_back(format);
    return {id, words};
}

// "transformer_blocks 0-3" -> "transformer blocks 0-3"; the component is named in front unless
// the description already starts with it.
std::string blockWords(const std::vector<ComponentInfo>& components,
                       const std::vector<std::string>& blocks) {
    std::string d = describeBlocks(blocks);
    std::replace(d.begin(), d.end(), '_', ' ');
    std::replace(d.begin(), d.end(), '.', ' ');
    // One number in a group: "transformer blocks 2" -> "transformer block 2".
    std::string out;
    size_t start = 0;
    while (start <= d.size()) {
        size_t end = d.find(", ", start);
        if (end == std::string::npos) end = d.size();
        std::string g = d.substr(start, end - start);
        const size_t sp = g.rfind(' ');
        if (sp != std::string::npos && sp > 0 && g[sp - 1] == 's' &&
            g.find_first_not_of("0123456789", sp + 1) == std::string::npos && sp + 1 < g.size())
            g.erase(sp - 1, 1);
        out += (out.empty() ? "" : ", ") + g;
        start = end + 2;
    }
    d = out;
    if (blocks.empty()) return d;
    const std::string comp = componentOf(blocks.front());
    bool one = std::all_of(blocks.begin(), blocks.end(),
                           [&](const std::string& b) { return componentOf(b) == comp; });
    const std::string words = componentWords(components, comp);
    if (one && d.find(words) == std::string::npos) d = words + " " + d;
    return d;
}

double bytesPerParameter(Format f) {
    return storesFp32(f) ? 4.0 : 2.0;
}

// A weight total: "48.0 GB" from 10 GB up, "12.1 GB", "28.8 MB" below 1 GB.
std::string weightText(double gb) {
    std::ostringstream s;
    if (gb >= 10) {
        s.setf(std::ios::fixed);
        s.precision(1);
        s << gb << " GB";
    } else {
        s.precision(3);
        if (gb >= 1)
            s << gb << " GB";
        else
            s << gb * 1e3 << " MB";
    }
    return s.str();
}

// Whose memory a sentence names ("the %1's %2"): "Tesla T4", or "GPU" / "CPU" without a name.
std::string memoryOwner(const DeviceInfo& d) {
    return d.name.empty() ? (d.isCuda() ? "GPU" : "CPU") : d.name;
}

// "advice for a Tesla T4 (compute capability 7.5, 16 GB)", "advice for a GPU of compute
// capability 7.5 with 11 GB".
Message targetOpening(const DeviceInfo& d) {
    if (d.name.empty())
        return d.memoryGB > 0
                   ? Message{"advice.target.gpu_memory", {d.capabilityText(), d.memoryText()}}
                   : Message{"advice.target.gpu", {d.capabilityText()}};
    return d.memoryGB > 0
               ? Message{"advice.target.named_memory", {d.name, d.capabilityText(), d.memoryText()}}
               : Message{"advice.target.named", {d.name, d.capabilityText()}};
}

class Advisor {
public:
    explicit Advisor(const AdviceInput& in) : m_in(in) {
        for (const auto& c : in.components) m_total += double(std::max<int64_t>(c.parameters, 0));
    }

    const ComponentInfo* component(const std::string& name) const {
        for (const auto& c : m_in.components)
            if (c.name == name) return &c;
        return nullptr;
    }
    double params(const std::string& name) const {
        const auto* c = component(name);
        return c ? double(std::max<int64_t>(c->parameters, 0)) : 0.0;
    }
    // Share of the model's parameters in `name` (equal shares when counts are missing).
    double share(const std::string& name) const {
        const double p = params(name);
        if (m_total > 0 && p > 0) return p / m_total;
        return 1.0 / double(std::max<size_t>(1, m_in.components.size()));
    }
    double formatCost(Format f) const {
        const DeviceInfo& d = m_in.device;
        if (f == Format::BF16) return d.bf16Cheap() ? 0.0 : 3.0;
        if (f == Format::FP32) return d.fp16Fast() ? 2.0 : 0.5;
        return 0.0;
    }
    // "; bf16 is native on the A100": one cost piece, with its leading "; ".
    Message speedWords(Format f) const {
        const DeviceInfo& d = m_in.device;
        if (f == Format::BF16) {
            if (!d.isCuda())
                return {d.bf16Native() ? "advice.speed.cpu_bf16_native"
                                       : "advice.speed.cpu_bf16_emulated",
                        {}};
            if (d.bf16Native()) return {"advice.speed.gpu_bf16_native", {d.shortName()}};
            return {"advice.speed.gpu_bf16_slow", {d.shortName()}};
        }
        if (!d.isCuda()) return {"advice.speed.cpu_fp32", {}};
        if (d.fp16Fast()) return {"advice.speed.gpu_fp32_slower", {d.shortName()}};
        return {"advice.speed.gpu_fp32_same", {d.shortName()}};
    }

    // The format component `c` has under the failing plan (its run's format if the plan is
    // silent about it).
    Format baseFormat(const ComponentInfo& c) const {
        return m_in.failingPlan.resolve(c.name).value_or(c.format);
    }
    // The whole model's weights, GB, with share moved[c] of component c in `f` and the rest in
    // its base format; 0 when no component has a parameter count.
    double weightGB(const std::map<std::string, double>& moved, Format f) const {
        double bytes = 0;
        for (const auto& c : m_in.components) {
            const double p = double(std::max<int64_t>(c.parameters, 0));
            const auto m = moved.find(c.name);
            const double s = m == moved.end() ? 0.0 : std::min(1.0, m->second);
            bytes += p * ((1 - s) * bytesPerParameter(baseFormat(c)) + s * bytesPerParameter(f));
        }
        return bytes / 1e9;
    }
    // Sets x.weightGB and x.fits, and adds the memory sentence to `cost`, where the device has
    // a memory size.
    void memoryCheck(Fix& x, const std::map<std::string, double>& moved, MessageText& cost) const {
        const DeviceInfo& d = m_in.device;
        x.weightGB = weightGB(moved, x.format);
        if (!(d.memoryGB > 0) || !(x.weightGB > 0)) return;
        x.fits = x.weightGB <= d.memoryGB;
        if (*x.fits)
            cost.push_back(
                {"advice.cost.fits", {weightText(x.weightGB), memoryOwner(d), d.memoryText()}});
        else
            cost.push_back(
                {"advice.cost.too_big",
                 {formatName(x.format), weightText(x.weightGB), memoryOwner(d), d.memoryText()}});
    }
    double memoryPenalty(const Fix& x) const { return x.fits && !*x.fits ? 100.0 : 0.0; }

    // Whole components in `f`: one, or every component that failed or overflows together
    // ("run the transformer and VAE in bf16"; component "transformer,vae").
    Fix componentFix(const std::vector<std::string>& comps, Format f) const {
        Fix x;
        x.kind = f == Format::BF16 ? "component_bf16" : "component_fp32";
        x.format = f;
        std::vector<std::string> words;
        double moved = 0, shareMoved = 0;
        std::map<std::string, double> whole;
        PrecisionPlan p = m_in.failingPlan;
        for (const auto& comp : comps) {
            x.component += (x.component.empty() ? "" : ",") + comp;
            words.push_back(componentWords(m_in.components, comp));
            moved += params(comp);
            shareMoved += share(comp);
            whole[comp] = 1.0;
            p.add(comp, f);  // last rule wins: overrides every finer rule for the component
        }
        x.actionMessage = {componentAction(words, formatName(f))};
        MessageText cost;
        if (f == Format::FP32) {
            x.extraWeightMB = moved * 2.0 / 1e6;
            cost.push_back({"advice.cost.fp32_weights", {fmtNumber(x.extraWeightMB)}});
        } else {
            cost.push_back({"advice.cost.no_extra", {}});
        }
        cost.push_back(speedWords(f));
        if (f == Format::BF16) cost.push_back({"advice.cost.bf16_range", {}});
        memoryCheck(x, whole, cost);
        x.costMessage = cost;
        x.planText = p.normalisedText();
        x.score = shareMoved * (formatCost(f) + 0.1) + 0.05 + memoryPenalty(x);
        return x;
    }

    // 0 for text encoders, 2 for the VAE, 1 between: the order in which a pipeline runs them.
    int stage(const std::string& comp) const {
        const Role r = roleOf(m_in.components, comp);
        if (r == Role::TextEncoder || r == Role::TextEncoder2) return 0;
        return r == Role::Vae ? 2 : 1;
    }
    // The components whose rules `fix` changes from the failing plan's.
    std::set<std::string> touched(const PrecisionPlan& fix) const {
        const auto base = m_in.failingPlan.normalised().rules();
        std::set<std::string> out;
        const PrecisionPlan normal = fix.normalised();
        for (const auto& r : normal.rules())
            if (std::find(base.begin(), base.end(), r) == base.end())
                out.insert(componentOf(r.pattern));
        return out;
    }
    // Same format for every component and every point the runs recorded.
    bool samePlan(const PrecisionPlan& a, const PrecisionPlan& b) const {
        const auto same = [&](const std::string& path) {
            return a.resolve(path) == b.resolve(path);
        };
        for (const auto& c : m_in.components)
            if (!same(c.name)) return false;
        if (m_in.headroom)
            for (const auto& pt : m_in.headroom->points)
                if (!same(pt.name)) return false;
        return !m_in.firstFailure || same(m_in.firstFailure->point);
    }
    // See Fix: a run has shown this plan to fail.
    bool shownToFail(const Fix& x) const {
        if (x.verified || x.planText.empty()) return false;
        const PrecisionPlan plan = PrecisionPlan::parse(x.planText);
        for (const auto& failed : m_in.failedPlans)
            if (samePlan(plan, failed)) return true;
        if (!m_in.firstFailure) return false;
        const int failedAt = stage(m_in.firstFailure->component);
        for (const auto& c : touched(plan))
            if (stage(c) <= failedAt) return false;
        return true;  // only later components change: the failing point runs as before
    }
    // True when `x` leaves none of `comps` wholly in fp16.
    bool coversAll(const Fix& x, const std::set<std::string>& comps) const {
        if (x.planText.empty()) return true;
        const PrecisionPlan plan = PrecisionPlan::parse(x.planText);
        const std::set<std::string> changed = touched(plan);
        for (const auto& c : comps)
            if (!changed.count(c) && plan.resolve(c) == Format::FP16) return false;
        return true;
    }

    // `blocks`: the blocks to keep out of fp16; `totals`: blocks per component.
    Fix blockFix(const std::vector<std::string>& blocks, const std::map<std::string, int>& totals,
                 Format f, bool verified, const std::string& planText) const {
        Fix x;
        x.kind = verified ? "blocks" : "predicted_blocks";
        x.format = f;
        x.verified = verified;
        x.component = blocks.empty() ? "" : componentOf(blocks.front());
        std::map<std::string, int> kept;
        for (const auto& b : blocks) ++kept[componentOf(b)];
        std::map<std::string, double> moved;  // share of each component's blocks kept
        double s = 0, mb = 0;
        int total = 0;
        for (const auto& kv : kept) {
            const auto t = totals.find(kv.first);
            const int n = t == totals.end() ? kv.second : std::max(t->second, kv.second);
            total += n;
            moved[kv.first] = kv.second / double(n);
            s += share(kv.first) * kv.second / double(n);
            mb += params(kv.first) * kv.second / double(n) * 2.0 / 1e6;
        }
        x.blocksKept = int(blocks.size());
        x.blocksTotal = total;
        x.actionMessage = {
            {"advice.action.blocks", {blockWords(m_in.components, blocks), formatName(f)}}};
        MessageText cost;
        cost.push_back(
            {"advice.cost.blocks", {std::to_string(blocks.size()), std::to_string(total)}});
        if (!verified) cost.push_back({"advice.cost.predicted", {}});
        if (f == Format::FP32) {
            x.extraWeightMB = mb;
            cost.push_back({"advice.cost.fp32_blocks", {fmtNumber(mb)}});
        } else {
            cost.push_back({"advice.cost.no_extra_after", {}});
        }
        cost.push_back(speedWords(f));
        memoryCheck(x, moved, cost);
        x.costMessage = cost;
        x.planText = planText;
        x.score = s * (formatCost(f) + 0.1) + (verified ? 0.0 : 0.05) + memoryPenalty(x);
        return x;
    }

    Advice run() const {
        Advice a;
        const auto& ff = m_in.firstFailure;
        const auto& hr = m_in.headroom;
        std::set<std::string> problemComponents;
        if (ff) {
            if (ff->format != Format::FP16) return notFp16(*ff);
            a.fp16IsTheProblem = true;
            problemComponents.insert(ff->component);
            problemComponents.insert(m_in.failedComponents.begin(), m_in.failedComponents.end());
            const std::string kind = nonFiniteKindName(ff->kind);
            const std::string how = "." + executionName(ff->execution);  // part of the id
            a.headlineMessage = {ff->step >= 0
                                     ? Message{"advice.fp16_failed_step" + how,
                                               {kind, ff->point, std::to_string(ff->step)}}
                                     : Message{"advice.fp16_failed" + how, {kind, ff->point}}};
            if (ff->inputPoint && std::isfinite(ff->inputAbsMax))
                a.noteMessages.push_back({{"advice.note.input_headroom",
                                           {*ff->inputPoint, fmtNumber(ff->inputAbsMax, 6),
                                            fmtNumber(fp16HeadroomBits(ff->inputAbsMax))}}});
        } else if (hr && hr->firstFailure) {
            a.fp16IsTheProblem = true;
            a.predicted = true;
            const auto& pf = *hr->firstFailure;
            a.headlineMessage = {
                pf.step >= 0 ? Message{"advice.predicted_step",
                                       {pf.point, std::to_string(pf.step), fmtNumber(pf.maxAbs, 6)}}
                             : Message{"advice.predicted", {pf.point, fmtNumber(pf.maxAbs, 6)}}};
        } else {
            a.headlineMessage = {{"advice.clean", {}}};
            if (hr && std::isfinite(hr->minHeadroomBits)) {
                a.headlineMessage = {{"advice.clean_headroom", {fmtNumber(hr->minHeadroomBits)}}};
                if (hr->minHeadroomBits < 1)
                    a.noteMessages.push_back({{"advice.note.thin_headroom", {}}});
            }
            return a;
        }
        if (ff && !hr) {
            // No clean run to measure them: the fp16 components after the failing one never ran
            // on finite inputs, so nothing says they are safe; a fix must cover them too.
            for (const auto& c : m_in.components)
                if (stage(c.name) > stage(ff->component) && baseFormat(c) == Format::FP16)
                    problemComponents.insert(c.name);
        }
        std::map<std::string, int> totals;  // blocks per component, from the headroom table
        std::vector<std::string> predicted;
        if (hr) {
            std::set<std::string> seen;
            for (const auto& p : hr->points)
                if (seen.insert(p.block).second) ++totals[p.component];
            std::set<std::string> got;
            for (size_t i : hr->overflowing) {
                const auto& p = hr->points[i];
                problemComponents.insert(p.component);
                if (got.insert(p.block).second) predicted.push_back(p.block);
            }
        }
        deviceNotes(a, problemComponents);
        std::vector<Fix> fixes;
        const auto& bis = m_in.bisection;
        bool verifiedBlocks = false;
        if (bis && bis->found && !bis->keptBlocks.empty()) {
            std::map<std::string, int> candTotals;
            for (const auto& c : bis->candidates) ++candTotals[componentOf(c)];
            fixes.push_back(
                blockFix(bis->keptBlocks, candTotals, bis->safeFormat, true, bis->planText));
            verifiedBlocks = true;
            if (bis->status != BisectionStatus::Fixed)
                a.noteMessages.push_back(
                    {{"advice.note.bisection_early", {bisectionStatusName(bis->status)}}});
        } else if (bis && bis->status == BisectionStatus::CannotFix) {
            a.noteMessages.push_back(
                {{"advice.note.bisection_cannot",
                  {std::to_string(bis->candidates.size()), formatName(bis->safeFormat)}}});
        }
        if (!verifiedBlocks && !predicted.empty()) {
            const Format f = m_in.device.bf16Cheap() ? Format::BF16 : Format::FP32;
            fixes.push_back(
                blockFix(predicted, totals, f, false,
                         planWithSafeBlocks(m_in.failingPlan, predicted, f).normalisedText()));
        }
        for (const auto& c : problemComponents) {
            fixes.push_back(componentFix({c}, Format::BF16));
            fixes.push_back(componentFix({c}, Format::FP32));
        }
        if (problemComponents.size() > 1) {
            const std::vector<std::string> all(problemComponents.begin(), problemComponents.end());
            fixes.push_back(componentFix(all, Format::BF16));
            fixes.push_back(componentFix(all, Format::FP32));
        }
        fixes.erase(std::remove_if(fixes.begin(), fixes.end(),
                                   [&](const Fix& x) { return shownToFail(x); }),
                    fixes.end());
        for (auto& x : fixes)
            if (!x.verified && !coversAll(x, problemComponents)) x.score += 10;
        std::stable_sort(fixes.begin(), fixes.end(),
                         [](const Fix& x, const Fix& y) { return x.score < y.score; });
        for (size_t i = 0; i < fixes.size(); ++i) fixes[i].rank = int(i) + 1;
        a.fixes = std::move(fixes);
        if (!verifiedBlocks && !(bis && bis->status == BisectionStatus::CannotFix)) {
            for (const auto& c : problemComponents) {
                const auto t = totals.find(c);
                if (t == totals.end() || t->second < 2) continue;
                const int n = t->second;
                const int trials = 1 + 2 * int(std::ceil(std::log2(double(n)))) + 2;
                a.noteMessages.push_back({{"advice.note.bisect_hint",
                                           {std::to_string(n), componentWords(m_in.components, c),
                                            std::to_string(trials)}}});
            }
        }
        return a;
    }

private:
    Advice notFp16(const FirstFailure& ff) const {
        Advice a;
        a.fp16IsTheProblem = false;
        const std::string kind = nonFiniteKindName(ff.kind);
        a.headlineMessage = {
            ff.step >= 0 ? Message{"advice.not_fp16_step",
                                   {kind, ff.point, std::to_string(ff.step), formatName(ff.format)}}
                         : Message{"advice.not_fp16", {kind, ff.point, formatName(ff.format)}}};
        if (ff.inputPoint) {
            if (std::isfinite(ff.inputAbsMax))
                a.noteMessages.push_back(
                    {{"advice.note.input_finite", {*ff.inputPoint, fmtNumber(ff.inputAbsMax, 6)}}});
            else
                a.noteMessages.push_back({{"advice.note.input_nonfinite", {*ff.inputPoint}}});
        }
        Fix x;
        x.rank = 1;
        x.kind = "check_inputs";
        x.component = ff.component;
        x.format = ff.format;
        x.actionMessage = {{"advice.action.check_inputs", {ff.block}}};
        x.costMessage = {{"advice.cost.check_inputs", {}}};
        a.fixes.push_back(x);
        return a;
    }

    void deviceNotes(Advice& a, const std::set<std::string>& comps) const {
        const DeviceInfo& d = m_in.device;
        if (!d.isCuda())
            a.noteMessages.push_back(
                {{d.bf16Native() ? "advice.note.cpu_fp16" : "advice.note.cpu_fp16.bf16_emulated",
                  {}}});
        else if (!d.fp16Fast())
            a.noteMessages.push_back({{"advice.note.no_fp16_cores", {d.shortName()}}});
        const double failing = weightGB({}, Format::FP16);
        if (d.memoryGB > 0 && failing > d.memoryGB)
            a.noteMessages.push_back(
                {{"advice.note.too_big", {weightText(failing), memoryOwner(d), d.memoryText()}}});
        for (const auto& c : comps) {
            const auto* info = component(c);
            if (!info) continue;
            const auto stored = parseFormat(info->storedDtype);
            if (stored == Format::BF16 && info->format == Format::FP16)
                a.noteMessages.push_back(
                    {{"advice.note.bf16_stored", {componentWords(m_in.components, c)}}});
        }
    }

    const AdviceInput& m_in;
    double m_total = 0;
};

}  // namespace

Advice adviseFixes(const AdviceInput& input) {
    Advice a = Advisor(input).run();
    a.device = input.device;
    const DeviceInfo& d = input.device;
    if (d.target && d.isCuda()) {
        MessageText n{targetOpening(d)};
        if (!input.runDevice.empty()) n.push_back({"advice.target.run_device", {input.runDevice}});
        n.push_back(
            {d.memoryGB > 0 ? "advice.target.memory_known" : "advice.target.memory_unknown", {}});
        a.noteMessages.insert(a.noteMessages.begin(), n);
    }
    // The English text, from the messages: one source for both.
    a.headline = englishText(a.headlineMessage);
    a.notes.clear();
    for (const auto& n : a.noteMessages) a.notes.push_back(englishText(n));
    for (auto& x : a.fixes) {
        x.action = englishText(x.actionMessage);
        x.cost = englishText(x.costMessage);
    }
    return a;
}

std::string fixCheckText(const Fix& f) {
    if (f.verified) return " (verified)";
    if (!f.triedVerdict.empty())
        return " (tried on the same prompt and seed: " + f.triedVerdict + ")";
    return f.planText.empty() ? "" : " (not tried)";
}

}  // namespace hs
