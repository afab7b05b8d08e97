#include "runtime/runtime.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <unistd.h>
#include <vector>

#include "numerics/cpu_bf16.h"
#include "runtime/parallelism.h"

namespace hs {

namespace {

bool g_policySetBeforeLibraries = false;

bool keepOmpWait() {
    return std::getenv("OMP_WAIT_POLICY") || std::getenv("HALFSCOPE_KEEP_OMP_WAIT");
}

// Runs from the executable's .preinit_array: before any shared library's initialiser, so before
// libgomp's, which reads OMP_WAIT_POLICY once. Setting it here saves re-executing the program,
// which loaded LibTorch (and its ~290 libraries) a second time: 0.3 s of every start.
void passiveOmpWaitBeforeLibraries(int, char**, char**) {
    if (keepOmpWait()) return;
    setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    g_policySetBeforeLibraries = true;
}

}  // namespace

// Only an executable's .preinit_array is run; this object is linked into every program that
// calls ensurePassiveOmpWait().
__attribute__((section(".preinit_array"), used)) void (*const kHalfscopePreinit)(
    int, char**, char**) = &passiveOmpWaitBeforeLibraries;

void ensurePassiveOmpWait(int argc, char** argv) {
    if (g_policySetBeforeLibraries || keepOmpWait()) return;
    // The hook did not run (a loader without preinit arrays): re-execute with the variable set.
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    std::vector<char*> args(argv, argv + argc);
    args.push_back(nullptr);
    execv("/proc/self/exe", args.data());
    // execv failed (no /proc): carry on with the spinning policy rather than not at all.
}

int configureRuntime(int threads) {
    if (threads <= 0) {
        if (const char* env = std::getenv("HALFSCOPE_THREADS")) threads = std::atoi(env);
    }
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    setConfiguredThreads(threads);
    at::globalContext().setFlushDenormal(true);
    if (const char* env = std::getenv("HALFSCOPE_CPU_BF16")) {
        const auto mode = parseCpuBf16(env);
        if (!mode)
            throw std::invalid_argument(std::string("HALFSCOPE_CPU_BF16 must be emulated, native "
                                                    "or auto, got '") +
                                        env + "'");
        setCpuBf16Mode(*mode);
    }
    return threads;
}

}  // namespace hs
