#include "runtime/runtime.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "numerics/cpu_bf16.h"
#include "runtime/parallelism.h"

namespace hs {

void ensurePassiveOmpWait(int argc, char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("HALFSCOPE_KEEP_OMP_WAIT")) return;
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
