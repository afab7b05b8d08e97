#pragma once
// Process-wide LibTorch settings for the studio and the CLI.
#include <string>

namespace hs {

// libgomp reads OMP_WAIT_POLICY when it loads, before main(). With its default (spinning)
// waits, LibTorch's threads ran 5-300x slower whenever another process kept a core busy, and a
// desktop program always shares the CPU. When the variable is unset, this sets it to PASSIVE
// and re-executes the program (once; HALFSCOPE_NO_REEXEC=1 disables it). Returns only when no
// re-exec happened.
void ensurePassiveOmpWait(int argc, char** argv);

// Intra-op threads: `threads` > 0, else $HALFSCOPE_THREADS, else every core. Also flushes
// denormals (a trainer step here went from 0.8 s to 15 s without it). Returns the count used.
int configureRuntime(int threads = 0);

}  // namespace hs
