#pragma once
// What a report holds: one or more runs (a comparison when more than one), each with its
// findings, plus the environment and the optional bisection and advice. Plain values; the
// writers are in report_json.h, html_report.h and csv_report.h. No LibTorch.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "diagnosis/advice.h"
#include "diagnosis/bisection.h"
#include "diagnosis/first_failure.h"
#include "diagnosis/headroom.h"
#include "diagnosis/latent_divergence.h"
#include "diagnosis/remedies.h"
#include "records/run_types.h"

namespace hs {

// Where a report was made; plain strings so that a saved report reads back without the engine.
struct ReportEnvironment {
    std::string halfscopeVersion = HALFSCOPE_VERSION;
    std::string libtorchVersion;    // "1.13.1"
    std::string device;             // "cpu", "cuda:0 Tesla T4"
    std::string computeCapability;  // "7.5"; empty on the CPU
    std::string cpu;                // "AMD EPYC 7B13 (avx2, avx512_bf16)"
    std::string cpuBf16;            // how bf16 ran on the CPU: "bf16 emulated (...); mode ..."
    MessageText cpuBf16Message;     // the same as a message (empty in reports written before it)
    int threads = 0;                // LibTorch intra-op threads
    std::string os;                 // "Debian GNU/Linux 12"
};

// Computed from the record alone (and recomputed when a saved report is read).
struct RunFindings {
    std::optional<FirstFailure> firstFailure;
    HeadroomReport headroom;
};

struct ReportRun {
    std::string label;  // "fp16", "fp32 reference" ...; shown as the run's name
    RunRecord record;
    RunFindings findings;
};

struct Report {
    std::string title = "Halfscope report";
    std::string createdAt;  // ISO 8601 UTC, "2024-05-01T12:00:00Z"
    ReportEnvironment environment;
    std::vector<ReportRun> runs;  // runs[0] is the reference of a comparison
    std::optional<BisectionResult> bisection;
    std::optional<RemedyTable> remedies;  // the remedies tried and ranked
    std::optional<Advice> advice;
};

// A bad report file: wrong schema, newer version, missing or mistyped key. The message names
// the key path ("runs[0].record.steps[3].latent.min: expected a number, got a string").
class ReportFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

RunFindings analyzeRun(const RunRecord& record, const HeadroomOptions& headroom = {});
ReportRun makeReportRun(std::string label, RunRecord record, const HeadroomOptions& headroom = {});
// Runs in order (the first is the comparison's reference); createdAt is set to now.
Report makeReport(std::vector<ReportRun> runs, ReportEnvironment environment = {});
// Divergence of runs[i]'s latents from runs[0]'s (empty for i == 0).
std::vector<StepDivergence> divergenceFromReference(const Report& report, size_t run);

std::string nowUtcIso8601();

}  // namespace hs
