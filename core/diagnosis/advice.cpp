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
    return f == Format::FP32 ? 4.0 : 2.0;
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

// "the Tesla T4's 16 GB", "the GPU's 11 GB".
std::string memoryOf(const DeviceInfo& d) {
    const std::string owner = d.isCuda() ? (d.name.empty() ? "the GPU" : "the " + d.name)
                                         : (d.name.empty() ? "the CPU" : "the " + d.name);
    return owner + "'s " + d.memoryText();
}

// "a Tesla T4 (compute capability 7.5, 16 GB)", "a GPU of compute capability 7.5 with 11 GB".
std::string targetWords(const DeviceInfo& d) {
    if (d.name.empty())
        return "a GPU of compute capability " + d.capabilityText() +
               (d.memoryGB > 0 ? " with " + d.memoryText() : std::string());
    return "a " + d.name + " (compute capability " + d.capabilityText() +
           (d.memoryGB > 0 ? ", " + d.memoryText() : std::string()) + ")";
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
    std::string speedWords(Format f) const {
        const DeviceInfo& d = m_in.device;
        if (f == Format::BF16) {
            if (!d.isCuda())
                return d.bf16Native() ? "bf16 runs natively on this CPU (oneDNN)"
                                      : "bf16 is emulated on this CPU at fp32's speed";
            if (d.bf16Native()) return "bf16 is native on " + d.shortName();
            return "on " + d.shortName() +
                   " bf16 runs, slow (no bf16 tensor cores: bf16 is emulated and slow below "
                   "compute capability 8.0)";
        }
        if (!d.isCuda()) return "as fast as fp16 on this CPU (fp16 is emulated in fp32 here)";
        if (d.fp16Fast()) return "slower than fp16 on " + d.shortName() + " (no fp16 tensor cores)";
        return "about as fast as fp16 on " + d.shortName() + " (it has no fast fp16)";
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
    void memoryCheck(Fix& x, const std::map<std::string, double>& moved,
                     std::ostringstream& cost) const {
        const DeviceInfo& d = m_in.device;
        x.weightGB = weightGB(moved, x.format);
        if (!(d.memoryGB > 0) || !(x.weightGB > 0)) return;
        x.fits = x.weightGB <= d.memoryGB;
        if (*x.fits)
            cost << "; fits: " << weightText(x.weightGB) << " of weights in " << memoryOf(d);
        else
            cost << "; " << formatName(x.format) << " needs " << weightText(x.weightGB)
                 << " of weights, more than " << memoryOf(d);
    }
    double memoryPenalty(const Fix& x) const { return x.fits && !*x.fits ? 100.0 : 0.0; }

    Fix componentFix(const std::string& comp, Format f) const {
        Fix x;
        x.kind = f == Format::BF16 ? "component_bf16" : "component_fp32";
        x.component = comp;
        x.format = f;
        x.action = "run the " + componentWords(m_in.components, comp) + " in " + formatName(f);
        std::ostringstream cost;
        if (f == Format::FP32) {
            x.extraWeightMB = params(comp) * 2.0 / 1e6;
            cost << "its weights: " << fmtNumber(x.extraWeightMB) << " MB more than fp16";
        } else {
            cost << "no extra weight memory";
        }
        cost << "; " << speedWords(f);
        if (f == Format::BF16) cost << "; bf16 keeps fp32's range with 8 bits of precision";
        memoryCheck(x, {{comp, 1.0}}, cost);
        x.cost = cost.str();
        PrecisionPlan p = m_in.failingPlan;
        p.add(comp, f);  // last rule wins: overrides every finer rule for the component
        x.planText = p.toString();
        x.score = share(comp) * (formatCost(f) + 0.1) + 0.05 + memoryPenalty(x);
        return x;
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
        x.action = "keep " + blockWords(m_in.components, blocks) + " in " + formatName(f);
        std::ostringstream cost;
        cost << blocks.size() << " of " << total << " blocks";
        if (!verified) cost << " (predicted from the overflow headroom; not yet verified)";
        if (f == Format::FP32) {
            x.extraWeightMB = mb;
            cost << "; about " << fmtNumber(mb) << " MB more weights than fp16 (if the blocks are "
                 << "of equal size)";
        } else {
            cost << "; no extra weight memory";
        }
        cost << "; " << speedWords(f);
        memoryCheck(x, moved, cost);
        x.cost = cost.str();
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
            std::ostringstream h;
            h << "the first " << nonFiniteKindName(ff->kind) << " appeared at " << ff->point;
            if (ff->step >= 0) h << " (step " << ff->step << ")";
            h << ", running in fp16 (" << executionName(ff->execution)
              << "): a value passed fp16's largest finite value, 65504";
            a.headline = h.str();
            if (ff->inputPoint && std::isfinite(ff->inputAbsMax))
                a.notes.push_back("the point before it, " + *ff->inputPoint + ", had |max| " +
                                  fmtNumber(ff->inputAbsMax, 6) + " (" +
                                  fmtNumber(fp16HeadroomBits(ff->inputAbsMax)) +
                                  " bits below 65504)");
        } else if (hr && hr->firstFailure) {
            a.fp16IsTheProblem = true;
            a.predicted = true;
            const auto& pf = *hr->firstFailure;
            std::ostringstream h;
            h << "this run is clean, but in fp16 " << pf.point << " would overflow";
            if (pf.step >= 0) h << " at step " << pf.step;
            h << " (max |x| " << fmtNumber(pf.maxAbs, 6) << " >= 65520, which rounds to Inf)";
            a.headline = h.str();
        } else {
            std::ostringstream h;
            h << "no non-finite value";
            if (hr && std::isfinite(hr->minHeadroomBits)) {
                h << "; the point closest to fp16's limit keeps " << fmtNumber(hr->minHeadroomBits)
                  << " bits of headroom";
                if (hr->minHeadroomBits < 1)
                    a.notes.push_back(
                        "less than one bit of headroom: another prompt, seed or "
                        "size may overflow in fp16");
            }
            a.headline = h.str();
            return a;
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
                a.notes.push_back("the bisection stopped early (" +
                                  bisectionStatusName(bis->status) +
                                  "): its block set passes but may not be the smallest");
        } else if (bis && bis->status == BisectionStatus::CannotFix) {
            a.notes.push_back("a bisection with all " + std::to_string(bis->candidates.size()) +
                              " candidate blocks in " + formatName(bis->safeFormat) +
                              " still failed: the cause lies outside those blocks");
        }
        if (!verifiedBlocks && !predicted.empty()) {
            const Format f = m_in.device.bf16Cheap() ? Format::BF16 : Format::FP32;
            fixes.push_back(
                blockFix(predicted, totals, f, false,
                         planWithSafeBlocks(m_in.failingPlan, predicted, f).toString()));
        }
        for (const auto& c : problemComponents) {
            fixes.push_back(componentFix(c, Format::BF16));
            fixes.push_back(componentFix(c, Format::FP32));
        }
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
                a.notes.push_back("a precision bisection over the " + std::to_string(n) + " " +
                                  componentWords(m_in.components, c) +
                                  " blocks finds the fewest to keep out of fp16 (about " +
                                  std::to_string(trials) + " trial runs or more)");
            }
        }
        return a;
    }

private:
    Advice notFp16(const FirstFailure& ff) const {
        Advice a;
        a.fp16IsTheProblem = false;
        std::ostringstream h;
        h << "fp16 is not the problem: the first " << nonFiniteKindName(ff.kind) << " appeared at "
          << ff.point;
        if (ff.step >= 0) h << " (step " << ff.step << ")";
        h << ", which ran in " << formatName(ff.format);
        a.headline = h.str();
        if (ff.inputPoint) {
            if (std::isfinite(ff.inputAbsMax))
                a.notes.push_back("its input, " + *ff.inputPoint + ", was finite (|max| " +
                                  fmtNumber(ff.inputAbsMax, 6) +
                                  "): the operation itself produced it (a division by zero, the "
                                  "log or square root of a negative number) or its weights hold "
                                  "non-finite values");
            else
                a.notes.push_back("its input, " + *ff.inputPoint + ", held no finite value");
        }
        Fix x;
        x.rank = 1;
        x.kind = "check_inputs";
        x.component = ff.component;
        x.format = ff.format;
        x.action = "check the weights and inputs of " + ff.block + " for NaN or Inf";
        x.cost =
            "no precision change fixes this; `halfscope-cli inspect` counts non-finite weights";
        a.fixes.push_back(x);
        return a;
    }

    void deviceNotes(Advice& a, const std::set<std::string>& comps) const {
        const DeviceInfo& d = m_in.device;
        if (!d.isCuda())
            a.notes.push_back(
                "on this CPU fp16 is emulated (compute in fp32, outputs rounded): "
                "it saves memory but no time, while bf16 runs natively with fp32's "
                "range");
        else if (!d.fp16Fast())
            a.notes.push_back(d.shortName() + " has no fp16 tensor cores: fp16 saves memory only");
        const double failing = weightGB({}, Format::FP16);
        if (d.memoryGB > 0 && failing > d.memoryGB)
            a.notes.push_back("even the failing plan's weights, " + weightText(failing) +
                              ", are more than " + memoryOf(d) +
                              ": the model needs offloading (CPU or block by block) or a "
                              "smaller format whatever the fix");
        for (const auto& c : comps) {
            const auto* info = component(c);
            if (!info) continue;
            const auto stored = parseFormat(info->storedDtype);
            if (stored == Format::BF16 && info->format == Format::FP16)
                a.notes.push_back("the " + componentWords(m_in.components, c) +
                                  " is stored in bf16 and ran in fp16: bf16-trained weights "
                                  "can produce activations above 65504");
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
        std::string n = "advice for " + targetWords(d);
        if (!input.runDevice.empty()) n += "; the run itself was on " + input.runDevice;
        n += d.memoryGB > 0 ? ": ranks, costs and weight totals speak for that GPU"
                            : ": ranks and costs speak for that GPU (its memory is unknown: "
                              "give it to check the weights)";
        a.notes.insert(a.notes.begin(), n);
    }
    return a;
}

}  // namespace hs
