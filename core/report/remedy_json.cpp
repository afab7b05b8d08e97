#include "report/remedy_json.h"

#include "report/message_json.h"

namespace hs {

using json_in::Node;
using json_in::numberOrNull;
using nlohmann::ordered_json;

namespace {

RemedyKind kindFrom(const Node& n) {
    for (RemedyKind k :
         {RemedyKind::Format, RemedyKind::Clamp, RemedyKind::Scale, RemedyKind::Fp32Residual})
        if (remedyKindName(k) == n.string()) return k;
    n.fail("unknown remedy \"" + n.string().substr(0, 40) + "\"");
}

PrecisionPlan planFrom(const Node& n) {
    try {
        return PrecisionPlan::parse(n.string());
    } catch (const PlanParseError& e) {
        n.fail(e.what());
    }
}

std::vector<std::string> stringsFrom(const Node& n) {
    std::vector<std::string> v;
    for (size_t i = 0; i < n.size(); ++i) v.push_back(n.at(i).string());
    return v;
}

}  // namespace

ordered_json remediesToJson(const RemedyTable& t) {
    ordered_json rows = ordered_json::array();
    for (const auto& r : t.rows) {
        const RemedyCandidate& c = r.candidate;
        rows.push_back({{"rank", r.rank},
                        {"remedy", remedyKindName(c.kind)},
                        {"action", remedyAction(c)},
                        {"scope", c.scope},
                        {"modules", c.modules},
                        {"format", formatName(c.format)},
                        {"scale_bits", c.scaleBits},
                        {"changes", c.changes},
                        {"plan", r.planText},
                        {"passed", r.passed},
                        {"why", r.why},
                        {"why_message", messageToJson(r.whyMessage)},
                        {"verdict", r.outcome.verdict},
                        {"non_finite", r.outcome.nonFinite},
                        {"difference", numberOrNull(r.outcome.difference)},
                        {"psnr_db", numberOrNull(r.psnr)},
                        {"seconds", numberOrNull(r.outcome.seconds)},
                        {"seconds_per_step_here", numberOrNull(r.secondsPerStep)},
                        {"extra_weight_mb", numberOrNull(r.extraWeightMB)},
                        {"cost", r.cost},
                        {"cost_message", messageToJson(r.costMessage)},
                        {"cost_score", numberOrNull(r.costScore)},
                        {"error", r.outcome.error}});
    }
    return ordered_json{{"reference_plan", t.referencePlan},
                        {"target", t.target},
                        {"failing_blocks", t.failingBlocks},
                        {"message", t.message},
                        {"message_message", messageToJson(t.messageText)},
                        {"rows", rows}};
}

RemedyTable remediesFromJson(const Node& n) {
    RemedyTable t;
    t.referencePlan = n["reference_plan"].string();
    t.target = n["target"].string();
    t.failingBlocks = stringsFrom(n["failing_blocks"]);
    t.message = n["message"].string();
    t.messageText = optionalMessage(n, "message_message");  // absent in older reports
    const Node rows = n["rows"];
    for (size_t i = 0; i < rows.size(); ++i) {
        const Node x = rows.at(i);
        RemedyRow r;
        r.rank = x["rank"].intValue();
        r.candidate.kind = kindFrom(x["remedy"]);
        r.candidate.scope = x["scope"].string();
        r.candidate.modules = stringsFrom(x["modules"]);
        const auto f = parseFormat(x["format"].string());
        if (!f) x["format"].fail("unknown format \"" + x["format"].string().substr(0, 40) + "\"");
        r.candidate.format = *f;
        r.candidate.scaleBits = x["scale_bits"].intValue();
        r.candidate.changes = x["changes"].intValue();
        r.planText = x["plan"].string();
        r.candidate.plan = planFrom(x["plan"]);
        r.passed = x["passed"].boolean();
        r.why = x["why"].string();
        r.whyMessage = optionalMessage(x, "why_message");
        r.outcome.verdict = x["verdict"].string();
        r.outcome.nonFinite = x["non_finite"].integer();
        r.outcome.difference = x["difference"].number();
        r.psnr = x["psnr_db"].number();
        r.outcome.seconds = x["seconds"].number();
        r.secondsPerStep = x["seconds_per_step_here"].number();
        r.extraWeightMB = x["extra_weight_mb"].number();
        r.cost = x["cost"].string();
        r.costMessage = optionalMessage(x, "cost_message");
        r.costScore = x["cost_score"].number();
        r.outcome.error = x["error"].string();
        t.rows.push_back(std::move(r));
    }
    return t;
}

}  // namespace hs
