#pragma once
// What the report-writing commands share: the report files beside an HTML path, exit codes.
#include <string>

#include "cli/command.h"
#include "report/report_types.h"
#include "runtime/report_environment.h"

namespace hs::cli {

// The options that name the GPU the advice is for, for allowOnly() lists, and their help.
#define HS_TARGET_OPTIONS "target", "target-cc", "target-memory", "advise-for"
#define HS_ADVISE_FOR_HELP                                                                         \
    "  --target GPU       advise for the GPU the model will run on, not the device that ran\n"     \
    "                     (the run stays emulated here): t4, v100, v100-32, p100, p100-16,\n"      \
    "                     rtx2080ti, rtx20, gtx16, a100, a100-80, rtx3060, rtx3090, rtx30, a10,\n" \
    "                     l4, rtx4090, rtx40, h100 (any case; a plain name is the smaller size,\n" \
    "                     -32 / -16 / -80 the larger; series names have no memory size), a\n"      \
    "                     compute capability such as 7.5, or NAME=7.5; prints the ranked fixes\n"  \
    "                     and says whether the weights fit. --advise-for is an alias\n"            \
    "  --target-cc X.Y    a GPU by hand: its compute capability (7.5, 8.6, ...), instead of\n"     \
    "                     --target\n"                                                              \
    "  --target-memory GB its memory in GB (above 0, at most 1024), with --target-cc or to\n"      \
    "                     size a --target; e.g. --target-cc 7.5 --target-memory 11\n"

// --check-fixes: every plan the advice suggests is run before it is offered.
#define HS_CHECK_FIXES_HELP                                                                        \
    "  --check-fixes      run every plan the advice suggests on the same prompt and seed before\n" \
    "                     offering it: a plan that still fails is dropped (named on stderr and\n"  \
    "                     in the advice's notes), the others say \"tried on the same prompt and\n" \
    "                     seed: ok\"; without it each suggestion says \"(not tried)\"\n"

// True when the command was asked for advice for a target GPU (--target, --advise-for,
// --target-cc).
bool wantsAdvice(const Args& args);

// The device the advice is for: the target GPU (--target / --advise-for NAME, or --target-cc
// with --target-memory), else the run's device. Throws UsageError naming the accepted forms for
// an unknown GPU, a malformed capability or memory size, or options that contradict each other.
DeviceInfo adviceDeviceFor(const Args& args, const std::string& runDevice);

// Adds the advice for `device` to `report` (with --check-fixes, each suggested plan run on the
// failing run's settings first, see HS_CHECK_FIXES_HELP); with --report FILE.html writes FILE.html,
// FILE.json, FILE-steps.csv and FILE-layers.csv (where they went on stderr); with a target
// (wantsAdvice) prints the advice on stdout unless --json.
void finishReport(const Args& args, Report report, const DeviceInfo& device);

// Exit status for a finished run, from its verdict: kExitNonFinite (1) when the image holds
// NaN/Inf or is black; kExitContained (3) when the image is fine but a NaN/Inf appeared inside
// the run (a clamp or scale rule held it back); else kExitOk (0).
int exitStatusOf(const RunRecord& r);

// For a run that exits kExitContained, one sentence for a script's reader: the image is fine,
// where the non-finite value appeared and which of the plan's remedies covered it, and the exit
// status; empty for any other run.
std::string containedNote(const RunRecord& r);

}  // namespace hs::cli
