#include "report/report_json.h"

#include "io/atomic_file.h"
#include "io/bounded_read.h"
#include "io/safetensors_header.h"  // FileError
#include "report/findings_json.h"
#include "report/json_in.h"
#include "report/remedy_json.h"

namespace hs {

using json_in::Node;
using nlohmann::ordered_json;

std::string reportToJson(const Report& report, const JsonReportOptions& options) {
    ordered_json runs = ordered_json::array();
    for (const auto& run : report.runs) {
        const RunFindings& f = run.findings;
        runs.push_back({{"label", run.label},
                        {"record", runRecordToJson(run.record, options.record)},
                        {"findings",
                         {{"first_failure", f.firstFailure ? firstFailureToJson(*f.firstFailure)
                                                           : ordered_json(nullptr)},
                          {"headroom", headroomToJson(f.headroom)}}}});
    }
    ordered_json divergence = ordered_json::array();
    for (size_t i = 1; i < report.runs.size(); ++i)
        divergence.push_back(
            {{"run", i}, {"steps", divergenceToJson(divergenceFromReference(report, i))}});
    ordered_json j{
        {"schema", kReportSchema},
        {"schema_version", kReportSchemaVersion},
        {"generator", "Halfscope " + std::string(HALFSCOPE_VERSION)},
        {"title", report.title},
        {"created_at", report.createdAt},
        {"environment", environmentToJson(report.environment)},
        {"runs", runs},
        {"comparison", {{"reference_run", 0}, {"latent_divergence", divergence}}},
        {"bisection",
         report.bisection ? bisectionToJson(*report.bisection) : ordered_json(nullptr)},
        {"remedies", report.remedies ? remediesToJson(*report.remedies) : ordered_json(nullptr)},
        {"advice", report.advice ? adviceToJson(*report.advice) : ordered_json(nullptr)}};
    // Replace invalid UTF-8 (a prompt from a broken terminal) instead of throwing.
    return j.dump(options.indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void writeReportJson(const std::string& path, const Report& report,
                     const JsonReportOptions& options) {
    const std::string text = reportToJson(report, options);
    writeFileAtomically(path, text.data(), text.size());
}

namespace {

Report reportFromTree(const nlohmann::json& j) {
    if (!j.is_object())
        throw ReportFormatError("not a Halfscope report: the top level is not an object");
    const Node n(j, "");
    if (!j.contains("schema") || !j.at("schema").is_string())
        throw ReportFormatError("not a Halfscope report: no \"schema\" key");
    const std::string schema = j.at("schema").get<std::string>();
    if (schema != kReportSchema)
        throw ReportFormatError("not a Halfscope report: \"schema\" is \"" + schema +
                                "\" (expected \"" + kReportSchema + "\")");
    const int64_t version = n["schema_version"].integer();
    if (version > kReportSchemaVersion)
        throw ReportFormatError("report schema_version " + std::to_string(version) +
                                " is newer than this Halfscope reads (" +
                                std::to_string(kReportSchemaVersion) + "): update Halfscope");
    if (version < 1)
        throw ReportFormatError("report schema_version " + std::to_string(version) +
                                " is not a valid version");
    Report r;
    r.title = n["title"].string();
    r.createdAt = n["created_at"].string();
    r.environment = environmentFromJson(n["environment"]);
    const Node runs = n["runs"];
    for (size_t i = 0; i < runs.size(); ++i) {
        const Node run = runs.at(i);
        ReportRun rr;
        rr.label = run["label"].string();
        rr.record = runRecordFromJson(run["record"].raw(), run.path() + ".record");
        rr.findings = analyzeRun(rr.record);
        r.runs.push_back(std::move(rr));
    }
    if (n.has("bisection")) r.bisection = bisectionFromJson(n["bisection"]);
    if (n.has("remedies")) r.remedies = remediesFromJson(n["remedies"]);
    if (n.has("advice")) r.advice = adviceFromJson(n["advice"]);
    return r;
}

}  // namespace

Report reportFromJson(const std::string& text) {
    nlohmann::json j;
    try {
        // Nesting first: a "[[[[..." of 100 000 levels would build one node per level.
        checkJsonDepth(text);
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw ReportFormatError("not valid JSON: " + boundedJsonError(e));
    } catch (const std::runtime_error& e) {
        throw ReportFormatError(std::string("not valid JSON: ") + e.what());
    }
    return reportFromTree(j);
}

Report readReportJson(const std::string& path) {
    // A regular file of at most kMaxReportBytes, nested at most kMaxJsonDepth levels: FileError.
    const nlohmann::json j = readBoundedJson(path, kMaxReportBytes, "report");
    try {
        return reportFromTree(j);
    } catch (const ReportFormatError& e) {
        throw ReportFormatError(path + ": " + e.what());
    }
}

}  // namespace hs
