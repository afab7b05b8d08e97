#include "diagnosis/weight_risk.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "base/affixes.h"
#include "base/enum_names.h"
#include "diagnosis/blocks.h"
#include "diagnosis/headroom.h"

namespace hs {

namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.3g", v);
    return buf;
}

bool contains(const std::string& s, const char* part) {
    return s.find(part) != std::string::npos;
}

// A layer: the weight and bias of one module path.
struct Layer {
    std::string component, path;
    const WeightStats* weight = nullptr;
    const WeightStats* bias = nullptr;
    std::vector<const WeightStats*> others;  // tensors that are neither (scale_shift_table ...)
};

struct Verdict {
    Fp16Risk risk = Fp16Risk::Safe;
    double peak = 0;
    std::string reason;
};

bool isEmbeddingTable(const std::string& path) {
    for (const char* p : {"token_embedding", "position_embedding", "embed_tokens", "shared", "wte",
                          "wpe", "embed_positions"})
        if (endsWith(path, p)) return true;
    return false;
}

bool isNorm(const std::string& path) {
    const auto dot = path.rfind('.');
    const std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
    return contains(last, "norm") || contains(last, "ln_") || last == "ln";
}

// Rule 1 on one tensor; Safe with empty reason when it does not apply.
Verdict storageVerdict(const WeightStats& s) {
    Verdict v;
    if (s.nonFinite > 0) {
        v.risk = Fp16Risk::WillOverflow;
        v.peak = INFINITY;
        v.reason = s.key + " stores " + std::to_string(s.nonFinite) + " non-finite value(s)";
    } else if (s.maxAbs >= kFp16OverflowThreshold) {
        v.risk = Fp16Risk::WillOverflow;
        v.peak = s.maxAbs;
        v.reason =
            "an fp16 weight would overflow: max |w| " + num(s.maxAbs) + " > 65504 in " + s.key +
            (s.dtype == "F16" ? "" : " (weights stored in " + s.dtype + " exceed fp16's range)");
    } else if (s.maxAbs > kFp16Max) {
        v.risk = Fp16Risk::AtRisk;
        v.peak = s.maxAbs;
        v.reason = "a weight saturates at 65504 in fp16: max |w| " + num(s.maxAbs) + " in " + s.key;
    }
    return v;
}

Fp16Risk byPeak(double peak) {
    if (peak >= kFp16Max) return Fp16Risk::WillOverflow;
    if (peak >= kFp16Max / kWeightRiskAtRiskFactor) return Fp16Risk::AtRisk;
    return Fp16Risk::Safe;
}

// Rule 2: the layer's estimated output peak for an input of RMS 1.
Verdict estimateVerdict(const Layer& l) {
    Verdict v;
    const double bias = l.bias ? l.bias->maxAbs : 0.0;
    const WeightStats* w = l.weight;
    if (!w) {
        v.peak = bias;
        v.reason = "bias up to " + num(bias);
    } else if (w->shape.size() >= 2 && isEmbeddingTable(l.path)) {
        v.peak = w->maxAbs + bias;
        v.reason = "embedding rows up to " + num(w->maxAbs);
    } else if (w->shape.size() >= 2 && w->shape[0] > 0) {
        int64_t numel = 1;
        for (auto d : w->shape) numel *= d;
        const double fanIn = double(numel) / double(w->shape[0]);
        const double gain = w->rms * std::sqrt(fanIn);
        v.peak = kWeightRiskPeakToRms * gain + bias;
        v.reason = "linear gain bound ‖W‖_F/√out = " + num(gain) + " per unit input RMS (rms(W) " +
                   num(w->rms) + ", fan-in " + num(fanIn) + "): outputs near " + num(v.peak) +
                   " at " + num(kWeightRiskPeakToRms) + "x RMS peaks";
    } else {
        // 1-D weights: norm gains and scale vectors.
        v.peak = kWeightRiskPeakToRms * w->maxAbs + bias;
        v.reason = (isNorm(l.path) ? "norm gains up to " : "scales up to ") + num(w->maxAbs) +
                   ": outputs of ~" + num(w->maxAbs) + "x the stream's RMS";
    }
    v.risk = byPeak(v.peak);
    if (v.risk == Fp16Risk::Safe && w && w->shape.size() == 1 && isNorm(l.path) &&
        w->maxAbs >= kWeightRiskNormGainAtRisk)
        v.risk = Fp16Risk::AtRisk;
    v.reason = l.path + ": " + v.reason;
    return v;
}

Verdict layerVerdict(const Layer& l) {
    Verdict worst;
    std::vector<const WeightStats*> all = l.others;
    if (l.weight) all.push_back(l.weight);
    if (l.bias) all.push_back(l.bias);
    for (const auto* s : all) {
        Verdict v = storageVerdict(*s);
        if (!v.reason.empty() && (v.risk > worst.risk || worst.reason.empty())) worst = v;
    }
    if (worst.risk == Fp16Risk::WillOverflow) return worst;
    Verdict e = estimateVerdict(l);
    for (const auto* s : l.others) e.peak = std::max(e.peak, s->maxAbs);
    if (!worst.reason.empty() && worst.risk >= e.risk) return worst;
    return e;
}

void recomputeComponents(WeightRiskReport& r) {
    r.components.clear();
    std::map<std::string, size_t> at;
    for (const auto& m : r.modules) {
        auto it = at.find(m.component);
        if (it == at.end()) {
            it = at.emplace(m.component, r.components.size()).first;
            r.components.push_back({m.component});
        }
        ComponentRisk& c = r.components[it->second];
        ++c.modules;
        if (m.risk == Fp16Risk::AtRisk) ++c.atRisk;
        if (m.risk == Fp16Risk::WillOverflow) ++c.willOverflow;
        // The worst module: highest verdict, then highest (estimated or measured) peak.
        if (m.risk > c.risk ||
            (m.risk == c.risk && m.risk != Fp16Risk::Safe && m.estimatedPeak > c.peak)) {
            c.risk = m.risk;
            c.reason = m.reason;
            c.worstModule = m.module;
            c.peak = m.estimatedPeak;
            c.measured = m.measured;
        }
    }
}

}  // namespace

std::string fp16RiskName(Fp16Risk r) {
    static constexpr EnumName<Fp16Risk> names[] = {{Fp16Risk::Safe, "fp16 safe"},
                                                   {Fp16Risk::AtRisk, "at risk"},
                                                   {Fp16Risk::WillOverflow, "will overflow"}};
    return nameIn(names, r);
}

WeightRiskReport assessWeights(const std::vector<WeightStats>& stats) {
    // Group tensors into layers (in first-seen order), layers into modules.
    std::vector<Layer> layers;
    std::map<std::string, size_t> layerAt;
    for (const auto& s : stats) {
        std::string path = s.component.empty() ? s.key : s.component + "." + s.key;
        int role = 2;
        if (endsWith(path, ".weight")) {
            path.resize(path.size() - 7);
            role = 0;
        } else if (endsWith(path, ".bias")) {
            path.resize(path.size() - 5);
            role = 1;
        }
        auto it = layerAt.find(path);
        if (it == layerAt.end()) {
            it = layerAt.emplace(path, layers.size()).first;
            layers.push_back({s.component, path});
        }
        Layer& l = layers[it->second];
        if (role == 0)
            l.weight = &s;
        else if (role == 1)
            l.bias = &s;
        else
            l.others.push_back(&s);
    }
    WeightRiskReport r;
    std::map<std::string, size_t> moduleAt;
    for (const auto& l : layers) {
        const std::string block = blockOf(l.path);
        auto it = moduleAt.find(block);
        if (it == moduleAt.end()) {
            it = moduleAt.emplace(block, r.modules.size()).first;
            ModuleRisk m;
            m.module = block;
            m.component = l.component.empty() ? componentOf(block) : l.component;
            r.modules.push_back(m);
        }
        ModuleRisk& m = r.modules[it->second];
        const Verdict v = layerVerdict(l);
        for (const WeightStats* s : {l.weight, l.bias}) {
            if (!s) continue;
            ++m.tensors;
            m.maxAbsWeight = std::max(m.maxAbsWeight, s->maxAbs);
        }
        for (const auto* s : l.others) {
            ++m.tensors;
            m.maxAbsWeight = std::max(m.maxAbsWeight, s->maxAbs);
        }
        if (m.layer.empty() || v.risk > m.risk || (v.risk == m.risk && v.peak > m.estimatedPeak)) {
            m.risk = v.risk;
            m.estimatedPeak = v.peak;
            m.reason = v.reason;
            m.layer = l.path;
        }
    }
    recomputeComponents(r);
    return r;
}

void applyHeadroom(WeightRiskReport& r, const HeadroomReport& run) {
    struct Peak {
        double maxAbs = 0;
        std::string point;
        std::string component;
    };
    std::map<std::string, Peak> peaks;
    std::vector<std::string> order;
    for (const auto& p : run.points) {
        if (!p.runsInFp16 || p.afterFailure || p.records == 0) continue;
        const std::string block = p.block.empty() ? blockOf(p.name) : p.block;
        auto [it, added] = peaks.try_emplace(block);
        if (added) order.push_back(block);
        if (p.maxAbs >= it->second.maxAbs) {
            it->second.maxAbs = p.maxAbs;
            it->second.point = p.name;
        }
        it->second.component = p.component.empty() ? componentOf(block) : p.component;
    }
    for (const auto& block : order) {
        const Peak& pk = peaks.at(block);
        auto it = std::find_if(r.modules.begin(), r.modules.end(),
                               [&](const ModuleRisk& m) { return m.module == block; });
        if (it == r.modules.end()) {
            ModuleRisk m;
            m.module = block;
            m.component = pk.component;
            r.modules.push_back(m);
            it = r.modules.end() - 1;
        }
        it->measured = true;
        it->estimatedPeak = pk.maxAbs;
        it->layer = pk.point;
        if (pk.maxAbs >= kFp16OverflowThreshold) {
            it->risk = Fp16Risk::WillOverflow;
            it->reason = "a clean run peaked at " + num(pk.maxAbs) + " > 65504 at " + pk.point;
        } else if (pk.maxAbs >= kFp16Max / kWeightRiskAtRiskFactor) {
            it->risk = Fp16Risk::AtRisk;
            it->reason = "a clean run peaked at " + num(pk.maxAbs) + " at " + pk.point +
                         ", within " + num(std::log2(kWeightRiskAtRiskFactor)) + " bits of 65504";
        } else {
            it->risk = Fp16Risk::Safe;
            it->reason = "a clean run peaked at " + num(pk.maxAbs) + " at " + pk.point + " (" +
                         num(fp16HeadroomBits(pk.maxAbs)) + " bits of headroom)";
        }
    }
    if (!run.reliable)
        r.notes.push_back(
            "the clean run held non-finite values; only the points before them "
            "were used" +
            (run.note.empty() ? std::string() : ": " + run.note));
    recomputeComponents(r);
}

std::vector<ModuleRisk> WeightRiskReport::riskiest(size_t n) const {
    std::vector<ModuleRisk> out = modules;
    std::stable_sort(out.begin(), out.end(), [](const ModuleRisk& a, const ModuleRisk& b) {
        if (a.risk != b.risk) return a.risk > b.risk;
        return a.estimatedPeak > b.estimatedPeak;
    });
    if (out.size() > n) out.resize(n);
    return out;
}

const ComponentRisk* WeightRiskReport::component(const std::string& name) const {
    for (const auto& c : components)
        if (c.component == name) return &c;
    return nullptr;
}

const ModuleRisk* WeightRiskReport::module(const std::string& name) const {
    for (const auto& m : modules)
        if (m.module == name) return &m;
    return nullptr;
}

MessageText componentLineMessage(const WeightRiskReport& r) {
    static constexpr EnumName<Fp16Risk> ids[] = {
        {Fp16Risk::Safe, "weight_check.safe"},
        {Fp16Risk::AtRisk, "weight_check.at_risk"},
        {Fp16Risk::WillOverflow, "weight_check.will_overflow"}};
    MessageText out;
    for (const auto& c : r.components) {
        if (!out.empty()) out.push_back({"weight_check.separator", {}});
        out.push_back({nameIn(ids, c.risk), {c.component}});
        if (c.risk == Fp16Risk::Safe) continue;
        std::string module = c.worstModule;
        if (module.rfind(c.component + ".", 0) == 0) module = module.substr(c.component.size() + 1);
        const bool stored = c.reason.find("weight would overflow") != std::string::npos ||
                            c.reason.find("saturates") != std::string::npos ||
                            c.reason.find("non-finite") != std::string::npos;
        out.push_back({c.measured ? "weight_check.measured"
                       : stored   ? "weight_check.stored"
                                  : "weight_check.estimated",
                       {module, num(c.peak)}});
    }
    if (out.empty()) out.push_back({"weight_check.none", {}});
    return out;
}

std::string componentLine(const WeightRiskReport& r) {
    return englishText(componentLineMessage(r));
}

std::string formatWeightRisk(const WeightRiskReport& r, size_t top) {
    std::ostringstream os;
    os << "fp16 check from weights (before any run; a guess except where a weight cannot be "
          "stored):\n";
    for (const auto& c : r.components) {
        os << "  " << c.component << ": " << fp16RiskName(c.risk) << " (" << c.modules
           << " modules, " << c.atRisk << " at risk, " << c.willOverflow << " will overflow)\n";
    }
    const auto worst = r.riskiest(top);
    bool any = false;
    for (const auto& m : worst) {
        if (m.risk == Fp16Risk::Safe) continue;
        if (!any) os << "  riskiest modules:\n";
        any = true;
        os << "    " << fp16RiskName(m.risk) << "  " << m.module
           << (m.measured ? " [measured]" : "") << "\n      " << m.reason << "\n";
    }
    if (!any) os << "  no module at risk\n";
    for (const auto& n : r.notes) os << "  note: " << n << "\n";
    return os.str();
}

nlohmann::json toJson(const WeightRiskReport& r, size_t top) {
    nlohmann::json j;
    j["rule"] =
        "verdicts from weight statistics (max |w|, RMS, estimated output peak for a "
        "unit-RMS input at " +
        num(kWeightRiskPeakToRms) + "x RMS); measured modules come from a clean run";
    j["components"] = nlohmann::json::array();
    for (const auto& c : r.components)
        j["components"].push_back({{"component", c.component},
                                   {"verdict", fp16RiskName(c.risk)},
                                   {"reason", c.reason},
                                   {"worst_module", c.worstModule},
                                   {"modules", c.modules},
                                   {"at_risk", c.atRisk},
                                   {"will_overflow", c.willOverflow}});
    j["riskiest"] = nlohmann::json::array();
    for (const auto& m : r.riskiest(top))
        j["riskiest"].push_back(
            {{"module", m.module},
             {"component", m.component},
             {"verdict", fp16RiskName(m.risk)},
             {"reason", m.reason},
             {"layer", m.layer},
             {"estimated_peak", std::isfinite(m.estimatedPeak) ? nlohmann::json(m.estimatedPeak)
                                                               : nlohmann::json("inf")},
             {"max_abs_weight", m.maxAbsWeight},
             {"measured", m.measured}});
    j["notes"] = r.notes;
    return j;
}

}  // namespace hs
