#pragma once
// Process-wide LibTorch settings for the studio and the CLI.
#include <string>

namespace hs {

// libgomp reads OMP_WAIT_POLICY when it loads, before main(). With its default (spinning)
// waits, LibTorch's threads ran 5-300x slower whenever another process kept a core busy, and a
// desktop program always shares the CPU. When the variable is unset (and HALFSCOPE_KEEP_OMP_WAIT
// is not set), a hook in the executable's .preinit_array sets it to PASSIVE before any library
// loads; where that hook cannot run, this re-executes the program with it set. Returns only when
// no re-exec happened.
void ensurePassiveOmpWait(int argc, char** argv);

// Intra-op threads: `threads` > 0, else $HALFSCOPE_THREADS, else every core. Also flushes
// denormals (a trainer step here went from 0.8 s to 15 s without it) and takes the CPU's bf16
// mode from $HALFSCOPE_CPU_BF16 (emulated, native, auto; throws std::invalid_argument for
// anything else). Returns the thread count used.
int configureRuntime(int threads = 0);

}  // namespace hs
