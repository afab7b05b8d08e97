#pragma once
// The process-wide choice of how bf16 runs on the CPU (see CpuBf16 in format_types.h), like the
// thread count: read from $HALFSCOPE_CPU_BF16 by configureRuntime(), set by the CLI's
// --cpu-bf16 and the studio's settings. Emulated unless set. A pipeline takes the mode in force
// when it is loaded (its weights are converted then). No LibTorch in this header.
#include <string>

#include "records/format_types.h"
#include "records/message.h"

namespace hs {

// Whether this CPU has bf16 arithmetic instructions (AVX512-BF16 or AMX-BF16; BF16 on Arm).
// $HALFSCOPE_ASSUME_NO_BF16 (any value) answers no, to try a machine as one without them.
bool cpuHasBf16Instructions();

void setCpuBf16Mode(CpuBf16 mode);
CpuBf16 cpuBf16Mode();
// The mode resolved for this CPU: how bf16 runs here now.
Execution cpuBf16Execution();
// One line for tools and reports, e.g. "bf16 emulated (fp32 compute, weights and every op
// output rounded to bf16, as a GPU stores them); mode emulated".
std::string cpuBf16Description();
MessageText cpuBf16DescriptionMessage();  // the same as a message

}  // namespace hs
