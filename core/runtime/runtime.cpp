#include "runtime/runtime.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>

namespace hs {

void ensurePassiveOmpWait(int argc, char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("HALFSCOPE_NO_REEXEC")) return;
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
    at::globalContext().setFlushDenormal(true);
    return threads;
}

}  // namespace hs
