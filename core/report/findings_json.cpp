#include "report/findings_json.h"

#include <cmath>

#include "report/message_json.h"

namespace hs {

using json_in::Node;
using json_in::numberOrNull;
using nlohmann::ordered_json;

namespace {

ordered_json strings(const std::vector<std::string>& v) {
    ordered_json a = ordered_json::array();
    for (const auto& s : v) a.push_back(s);
    return a;
}

std::vector<std::string> stringsFrom(const Node& n) {
    std::vector<std::string> v;
    for (size_t i = 0; i < n.size(); ++i) v.push_back(n.at(i).string());
    return v;
}

Format formatFrom(const Node& n) {
    auto f = parseFormat(n.string());
    if (!f) n.fail("unknown format \"" + n.string() + "\"");
    return *f;
}

BisectionStatus statusFrom(const Node& n) {
    const std::string s = n.string();
    for (auto st :
         {BisectionStatus::Fixed, BisectionStatus::CannotFix, BisectionStatus::IterationLimit,
          BisectionStatus::Cancelled, BisectionStatus::NoCandidates})
        if (bisectionStatusName(st) == s) return st;
    n.fail("unknown bisection status \"" + s + "\"");
}

// The device an advice speaks for: kind, name, compute capability, memory, whether a user named
// it as the target, and the words a report shows.
ordered_json deviceToJson(const DeviceInfo& d) {
    return ordered_json{
        {"kind", d.isCuda() ? "cuda" : "cpu"},
        {"name", d.name},
        {"compute_capability", d.capabilityText()},
        {"memory_gb", d.memoryGB > 0 ? numberOrNull(d.memoryGB) : ordered_json(nullptr)},
        {"target", d.target},
        {"cpu_bf16", d.isCuda() ? "" : executionName(d.cpuBf16)},
        {"description", d.describe()}};
}

DeviceInfo deviceFrom(const Node& n) {
    const std::string kind = n["kind"].string();
    DeviceInfo d;
    if (kind == "cuda") {
        const std::string cc = n["compute_capability"].string();
        const auto dot = cc.find('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 >= cc.size() ||
            cc.find_first_not_of("0123456789.") != std::string::npos)
            n["compute_capability"].fail("expected MAJOR.MINOR such as \"7.5\", got \"" + cc +
                                         "\"");
        d = DeviceInfo::cuda(n["name"].string(), std::stoi(cc.substr(0, dot)),
                             std::stoi(cc.substr(dot + 1)));
    } else if (kind == "cpu") {
        d = DeviceInfo::cpu(n["name"].string(), n["cpu_bf16"].string() == "native"
                                                    ? Execution::Native
                                                    : Execution::Emulated);
    } else {
        n["kind"].fail("expected \"cuda\" or \"cpu\", got \"" + kind + "\"");
    }
    if (n.has("memory_gb")) d.memoryGB = n["memory_gb"].number();
    d.target = n["target"].boolean();
    return d;
}

}  // namespace

ordered_json firstFailureToJson(const FirstFailure& f) {
    ordered_json chain = ordered_json::array();
    for (const auto& l : f.chain)
        chain.push_back({{"label", l.label},
                         {"point", l.point},
                         {"component", l.component},
                         {"step", l.step},
                         {"non_finite", l.nonFinite}});
    return ordered_json{
        {"step", f.step},
        {"component", f.component},
        {"point", f.point},
        {"block", f.block},
        {"from_probe", f.fromProbe},
        {"probe_index", f.fromProbe ? ordered_json(f.probeIndex) : ordered_json(nullptr)},
        {"granularity", probeLevelName(f.granularity)},
        {"format", formatName(f.format)},
        {"execution", executionName(f.execution)},
        {"kind", nonFiniteKindName(f.kind)},
        {"nan", f.nan},
        {"pos_inf", f.posInf},
        {"neg_inf", f.negInf},
        {"count", f.count},
        {"input_point", f.inputPoint ? ordered_json(*f.inputPoint) : ordered_json(nullptr)},
        {"input_abs_max", f.inputPoint ? numberOrNull(f.inputAbsMax) : ordered_json(nullptr)},
        {"input_step", f.inputPoint ? ordered_json(f.inputStep) : ordered_json(nullptr)},
        {"chain", chain},
        {"chain_text", f.chainText()},
        {"reached_image", f.reachedImage},
        {"summary", f.summary()},
        {"summary_message", messageToJson(f.summaryMessage())}};
}

ordered_json headroomToJson(const HeadroomReport& h) {
    ordered_json points = ordered_json::array();
    for (const auto& p : h.points)
        points.push_back({{"name", p.name},
                          {"block", p.block},
                          {"component", p.component},
                          {"granularity", probeLevelName(p.granularity)},
                          {"first_index", p.firstIndex},
                          {"records", p.records},
                          {"max_abs", numberOrNull(p.maxAbs)},
                          {"peak_step", p.peakStep},
                          {"headroom_bits", numberOrNull(p.headroomBits)},
                          {"over_fp16", p.overFp16},
                          {"overflows", p.overflows},
                          {"saturates", p.saturates},
                          {"first_overflow_step",
                           p.overflows ? ordered_json(p.firstOverflowStep) : ordered_json(nullptr)},
                          {"runs_in_fp16", p.runsInFp16},
                          {"after_failure", p.afterFailure}});
    ordered_json over = ordered_json::array();
    for (size_t i : h.overflowing) over.push_back(h.points[i].name);
    ordered_json first = nullptr;
    if (h.firstFailure)
        first = {{"point", h.firstFailure->point},
                 {"block", h.firstFailure->block},
                 {"step", h.firstFailure->step},
                 {"max_abs", numberOrNull(h.firstFailure->maxAbs)},
                 {"probe_index", h.firstFailure->probeIndex}};
    return ordered_json{{"overflow_threshold", kFp16OverflowThreshold},
                        {"fp16_max", kFp16Max},
                        {"reliable", h.reliable},
                        {"note", h.note},
                        {"note_message", messageToJson(h.noteMessage)},
                        {"min_headroom_bits", numberOrNull(h.minHeadroomBits)},
                        {"predicted_overflow", over},
                        {"predicted_first_failure", first},
                        {"points", points}};
}

ordered_json divergenceToJson(const std::vector<StepDivergence>& d) {
    ordered_json a = ordered_json::array();
    for (const auto& s : d)
        a.push_back(
            {{"step", s.step},
             {"available", s.available},
             {"non_finite", s.nonFinite},
             {"relative_l2", s.available ? numberOrNull(s.relativeL2) : ordered_json(nullptr)},
             {"note", s.note}});
    return a;
}

ordered_json bisectionToJson(const BisectionResult& b) {
    ordered_json trials = ordered_json::array();
    for (const auto& t : b.trials)
        trials.push_back({{"iteration", t.iteration},
                          {"phase", t.phase},
                          {"safe_blocks", strings(t.safeBlocks)},
                          {"plan", t.planText},
                          {"outcome",
                           {{"all_finite", t.outcome.allFinite},
                            {"non_finite", t.outcome.nonFinite},
                            {"verdict", t.outcome.verdict},
                            {"difference", numberOrNull(t.outcome.difference)},
                            {"seconds", numberOrNull(t.outcome.seconds)},
                            {"error", t.outcome.error}}},
                          {"passed", t.passed},
                          {"why", t.why},
                          {"why_message", messageToJson(t.whyMessage)}});
    return ordered_json{{"status", bisectionStatusName(b.status)},
                        {"safe_format", formatName(b.safeFormat)},
                        {"tolerance", numberOrNull(b.tolerance)},
                        {"candidates", strings(b.candidates)},
                        {"found", b.found},
                        {"kept_blocks", strings(b.keptBlocks)},
                        {"plan", b.planText},
                        {"message", b.message},
                        {"message_message", messageToJson(b.messageText)},
                        {"trials", trials}};
}

ordered_json adviceToJson(const Advice& a) {
    ordered_json fixes = ordered_json::array();
    for (const auto& f : a.fixes)
        fixes.push_back({{"rank", f.rank},
                         {"kind", f.kind},
                         {"action", f.action},
                         {"cost", f.cost},
                         {"action_message", messageToJson(f.actionMessage)},
                         {"cost_message", messageToJson(f.costMessage)},
                         {"plan", f.planText},
                         {"component", f.component},
                         {"format", formatName(f.format)},
                         {"blocks_kept", f.blocksKept},
                         {"blocks_total", f.blocksTotal},
                         {"extra_weight_mb", numberOrNull(f.extraWeightMB)},
                         {"weight_gb", numberOrNull(f.weightGB)},
                         {"fits", f.fits ? ordered_json(*f.fits) : ordered_json(nullptr)},
                         {"verified", f.verified},
                         {"tried_verdict", f.triedVerdict.empty() ? ordered_json(nullptr)
                                                                  : ordered_json(f.triedVerdict)},
                         {"score", numberOrNull(f.score)}});
    ordered_json noteMessages = ordered_json::array();
    for (const auto& m : a.noteMessages) noteMessages.push_back(messageToJson(m));
    return ordered_json{{"fp16_is_the_problem", a.fp16IsTheProblem},
                        {"predicted", a.predicted},
                        {"headline", a.headline},
                        {"notes", strings(a.notes)},
                        {"headline_message", messageToJson(a.headlineMessage)},
                        {"note_messages", noteMessages},
                        {"fixes", fixes},
                        {"device", a.device ? deviceToJson(*a.device) : ordered_json(nullptr)}};
}

ordered_json environmentToJson(const ReportEnvironment& e) {
    return ordered_json{{"halfscope_version", e.halfscopeVersion},
                        {"libtorch_version", e.libtorchVersion},
                        {"device", e.device},
                        {"compute_capability", e.computeCapability},
                        {"cpu", e.cpu},
                        {"cpu_bf16", e.cpuBf16},
                        {"cpu_bf16_message", messageToJson(e.cpuBf16Message)},
                        {"threads", e.threads},
                        {"os", e.os}};
}

BisectionResult bisectionFromJson(const Node& n) {
    BisectionResult b;
    b.status = statusFrom(n["status"]);
    b.safeFormat = formatFrom(n["safe_format"]);
    b.tolerance = n["tolerance"].number();
    b.candidates = stringsFrom(n["candidates"]);
    b.found = n["found"].boolean();
    b.keptBlocks = stringsFrom(n["kept_blocks"]);
    b.planText = n["plan"].string();
    try {
        b.plan = PrecisionPlan::parse(b.planText);
    } catch (const PlanParseError& e) {
        n["plan"].fail(e.what());
    }
    b.message = n["message"].string();
    b.messageText = optionalMessage(n, "message_message");  // absent in older reports
    const Node trials = n["trials"];
    for (size_t i = 0; i < trials.size(); ++i) {
        const Node t = trials.at(i);
        BisectionTrial x;
        x.iteration = t["iteration"].intValue();
        x.phase = t["phase"].string();
        x.safeBlocks = stringsFrom(t["safe_blocks"]);
        x.planText = t["plan"].string();
        const Node o = t["outcome"];
        x.outcome.allFinite = o["all_finite"].boolean();
        x.outcome.nonFinite = o["non_finite"].integer();
        x.outcome.verdict = o["verdict"].string();
        x.outcome.difference = o["difference"].number();
        x.outcome.seconds = o["seconds"].number();
        x.outcome.error = o["error"].string();
        x.passed = t["passed"].boolean();
        x.why = t["why"].string();
        x.whyMessage = optionalMessage(t, "why_message");
        b.trials.push_back(std::move(x));
    }
    return b;
}

Advice adviceFromJson(const Node& n) {
    Advice a;
    a.fp16IsTheProblem = n["fp16_is_the_problem"].boolean();
    a.predicted = n["predicted"].boolean();
    a.headline = n["headline"].string();
    a.notes = stringsFrom(n["notes"]);
    // Messages: absent in older reports (the English above is then all there is).
    a.headlineMessage = optionalMessage(n, "headline_message");
    if (n.has("note_messages")) {
        const Node m = n["note_messages"];
        for (size_t i = 0; i < m.size(); ++i) a.noteMessages.push_back(messageFromJson(m.at(i)));
    }
    const Node fixes = n["fixes"];
    for (size_t i = 0; i < fixes.size(); ++i) {
        const Node f = fixes.at(i);
        Fix x;
        x.rank = f["rank"].intValue();
        x.kind = f["kind"].string();
        x.action = f["action"].string();
        x.cost = f["cost"].string();
        x.actionMessage = optionalMessage(f, "action_message");
        x.costMessage = optionalMessage(f, "cost_message");
        x.planText = f["plan"].string();
        x.component = f["component"].string();
        x.format = formatFrom(f["format"]);
        x.blocksKept = f["blocks_kept"].intValue();
        x.blocksTotal = f["blocks_total"].intValue();
        x.extraWeightMB = f["extra_weight_mb"].number();
        if (f.has("weight_gb")) x.weightGB = f["weight_gb"].number();
        if (f.has("fits")) x.fits = f["fits"].boolean();
        x.verified = f["verified"].boolean();
        if (f.has("tried_verdict")) x.triedVerdict = f["tried_verdict"].string();
        x.score = f["score"].number();
        a.fixes.push_back(std::move(x));
    }
    if (n.has("device")) a.device = deviceFrom(n["device"]);  // absent in older reports
    return a;
}

ReportEnvironment environmentFromJson(const Node& n) {
    ReportEnvironment e;
    e.halfscopeVersion = n["halfscope_version"].string();
    e.libtorchVersion = n["libtorch_version"].string();
    e.device = n["device"].string();
    e.computeCapability = n["compute_capability"].string();
    e.cpu = n["cpu"].string();
    if (n.has("cpu_bf16")) e.cpuBf16 = n["cpu_bf16"].string();  // absent before 0.2
    e.cpuBf16Message = optionalMessage(n, "cpu_bf16_message");
    e.threads = n["threads"].intValue();
    e.os = n["os"].string();
    return e;
}

}  // namespace hs
