#include "diagnosis/first_failure.h"

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "base/enum_names.h"
#include "diagnosis/blocks.h"
#include "diagnosis/run_timeline.h"
#include "records/run_types.h"

namespace hs {

namespace {

using Kind = TimelineEntry::Kind;

// How a later stage is named in the chain: the sub-model for a VAE or text model reached from
// upstream ("vae.decoder": where the values entered it), the block otherwise.
std::string stageLabel(const std::string& point) {
    const std::string block = blockOf(point);
    for (const char* container : {".decoder", ".encoder", ".text_model"}) {
        const std::string prefix = componentOf(point) + container;
        if (point.compare(0, prefix.size(), prefix) == 0 &&
            (point.size() == prefix.size() || point[prefix.size()] == '.'))
            return prefix;
    }
    return block;
}

void setCounts(FirstFailure& f, const TensorStats& s) {
    f.nan = s.nan;
    f.posInf = s.posInf;
    f.negInf = s.negInf;
    f.count = s.count;
    if (s.posInf + s.negInf > 0)
        f.kind = s.negInf > s.posInf ? NonFiniteKind::NegInf : NonFiniteKind::PosInf;
    else
        f.kind = NonFiniteKind::NaN;
}

}  // namespace

std::string nonFiniteKindName(NonFiniteKind k) {
    static constexpr EnumName<NonFiniteKind> names[] = {{NonFiniteKind::PosInf, "+Inf"},
                                                        {NonFiniteKind::NegInf, "-Inf"},
                                                        {NonFiniteKind::NaN, "NaN"}};
    return nameIn(names, k);
}

std::string SpreadLink::text() const {
    return step >= 0 ? label + " (step " + std::to_string(step) + ")" : label;
}

std::string FirstFailure::kindText() const {
    std::ostringstream s;
    s << nonFiniteKindName(kind) << " (" << posInf << " +Inf, " << negInf << " -Inf, " << nan
      << " NaN of " << count << " values)";
    return s.str();
}

std::string FirstFailure::chainText() const {
    std::string s;
    for (size_t i = 0; i < chain.size(); ++i) {
        if (i) s += " -> ";
        s += chain[i].text();
    }
    return s;
}

std::string FirstFailure::summary() const {
    return englishText(summaryMessage());
}

MessageText FirstFailure::summaryMessage() const {
    MessageText m;
    const std::string kindName = nonFiniteKindName(kind);
    if (fromProbe) {
        // How it ran is part of the id, so that a translation says it in its own words.
        const std::string how = "." + executionName(execution);
        if (step >= 0)
            m.push_back({"first_failure.probe_step" + how,
                         {kindName, point, block, std::to_string(step), formatName(format)}});
        else
            m.push_back(
                {"first_failure.probe" + how, {kindName, point, block, formatName(format)}});
    } else if (step >= 0) {
        m.push_back({"first_failure.record_step", {kindName, point, std::to_string(step)}});
    } else {
        m.push_back({"first_failure.record", {kindName, point}});
    }
    if (inputPoint) {
        if (inputStep >= 0)
            m.push_back({"first_failure.input_step",
                         {*inputPoint, std::to_string(inputStep), numberText(inputAbsMax)}});
        else
            m.push_back({"first_failure.input", {*inputPoint, numberText(inputAbsMax)}});
    }
    return m;
}

std::optional<FirstFailure> findFirstFailure(const RunRecord& run) {
    const auto timeline = runTimeline(run);
    size_t origin = timeline.size();
    for (size_t i = 0; i < timeline.size(); ++i) {
        if (timeline[i].stats->nonFinite() > 0) {
            origin = i;
            break;
        }
    }
    FirstFailure f;
    if (origin == timeline.size()) {
        // Nothing in the records; the engine may still have seen one (records trimmed).
        if (!run.firstNonFinite) return std::nullopt;
        const auto& at = run.firstNonFinite->at;
        f.step = at.step;
        f.component = componentOf(at.name);
        f.point = at.name;
        f.block = blockOf(at.name);
        f.fromProbe = true;
        f.probeIndex = run.firstNonFinite->index;
        f.granularity = at.granularity;
        f.format = at.format;
        f.execution = at.execution;
        setCounts(f, at.stats);
        if (run.firstNonFinite->input) {
            f.inputPoint = run.firstNonFinite->input->name;
            f.inputAbsMax = run.firstNonFinite->input->stats.absMax;
            f.inputStep = run.firstNonFinite->input->step;
        }
        f.chain.push_back({f.block, f.point, f.component, f.step, at.stats.nonFinite()});
        return f;
    }

    const TimelineEntry& o = timeline[origin];
    f.step = o.step;
    f.component = o.component;
    f.point = o.point;
    setCounts(f, *o.stats);
    if (o.kind == Kind::Probe) {
        const ProbeRecord& p = run.probes[o.probeIndex];
        f.fromProbe = true;
        f.probeIndex = o.probeIndex;
        f.block = blockOf(p.name);
        f.granularity = p.granularity;
        f.format = p.format;
        f.execution = p.execution;
    } else {
        f.block = o.point;
        // The record statistics carry no format; the component's is what it ran in.
        for (const auto& c : run.components)
            if (c.name == o.component) f.format = c.format, f.execution = c.execution;
    }
    if (origin > 0) {
        const TimelineEntry& in = timeline[origin - 1];
        f.inputPoint = in.point;
        f.inputAbsMax = in.stats->absMax;
        f.inputStep = in.step;
    }

    // The spread: the first non-finite entry of each later stage, each stage once.
    f.chain.push_back({f.block, f.point, f.component, f.step, o.stats->nonFinite()});
    std::set<std::string> linked{o.kind == Kind::Probe ? o.component : o.point};
    if (o.kind == Kind::Latents) linked.insert(o.component);
    for (size_t i = origin + 1; i < timeline.size(); ++i) {
        const TimelineEntry& e = timeline[i];
        const int64_t bad = e.stats->nonFinite();
        if (bad == 0) continue;
        if (e.kind == Kind::Probe) {
            if (!linked.insert(e.component).second) continue;
            f.chain.push_back({stageLabel(e.point), e.point, e.component, e.step, bad});
        } else {
            if (!linked.insert(e.point).second) continue;
            // Once the latents hold it, later denoiser probes are its consequence, not a hop.
            if (e.kind == Kind::Latents) linked.insert(e.component);
            f.chain.push_back({e.point, e.point, e.component, e.step, bad});
        }
    }
    f.reachedImage = f.chain.back().label == "image";
    return f;
}

}  // namespace hs
