#pragma once
// Process-wide LibTorch settings for the studio and the CLI.
#include <string>

namespace hs {

// libgomp reads OMP_WAIT_POLICY when LibTorch loads it: before main() and before the program's
// own initialisers (a .preinit_array hook runs after the libraries' constructors in a
// dynamically linked program, so it comes too late), hence only the environment a process starts
// with counts. With libgomp's default (spinning) waits, LibTorch's threads ran 5-300x slower
// whenever another process kept a core busy, and a desktop program always shares the CPU. The
// installed programs start through app/launcher, which sets PASSIVE first; a program started
// otherwise with the variable unset (and HALFSCOPE_KEEP_OMP_WAIT unset) is re-executed here with
// it set. Returns only when no re-exec happened.
void ensurePassiveOmpWait(int argc, char** argv);

// Intra-op threads: `threads` > 0, else $HALFSCOPE_THREADS, else every core. Also flushes
// denormals (a trainer step here went from 0.8 s to 15 s without it) and takes the CPU's bf16
// mode from $HALFSCOPE_CPU_BF16 (emulated, native, auto; throws std::invalid_argument for
// anything else). Turns TF32 off for CUDA matmuls and convolutions, so fp32 runs in fp32 there.
// Returns the thread count used.
int configureRuntime(int threads = 0);

}  // namespace hs
