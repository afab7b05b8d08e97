#pragma once
// What the report-writing commands share: the report files beside an HTML path, exit codes.
#include <string>

#include "cli/command.h"
#include "records/report_types.h"
#include "runtime/report_environment.h"

namespace hs::cli {

// The option that names the GPU the advice is for (--advise-for t4), and its help line.
#define HS_ADVISE_FOR_HELP                                                                     \
    "  --advise-for GPU   advise for this GPU instead of the device the run used: t4, v100,\n" \
    "                     p100, rtx20, gtx16, a100, rtx30, a10, l4, rtx40, h100, a compute\n"  \
    "                     capability such as 7.5, or NAME=7.5; prints the ranked fixes\n"

// The device the advice is for: --advise-for's GPU, else the run's device. Throws UsageError
// for an unknown GPU.
DeviceInfo adviceDeviceFor(const Args& args, const std::string& runDevice);

// Adds the advice for `device` to `report`; with --report FILE.html writes FILE.html,
// FILE.json, FILE-steps.csv and FILE-layers.csv (where they went on stderr); with --advise-for
// prints the advice on stdout unless --json.
void finishReport(const Args& args, Report report, const DeviceInfo& device);

// Exit status for a finished run: 1 when it holds NaN/Inf or is black, else 0.
int exitStatusOf(const RunRecord& r);

}  // namespace hs::cli
