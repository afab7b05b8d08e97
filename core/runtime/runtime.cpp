#include "runtime/runtime.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#include "numerics/cpu_bf16.h"
#include "runtime/parallelism.h"

namespace hs {

void ensurePassiveOmpWait(int argc, char** argv) {
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("HALFSCOPE_KEEP_OMP_WAIT")) return;
#ifdef _WIN32
    // The official Windows LibTorch uses Intel's OpenMP (libiomp5md.dll), which reads its
    // environment when the first OpenMP call initialises it rather than when the DLL loads, so
    // setting it before configureRuntime() should be enough (not measured on Windows yet); there
    // is no exec() to start again with it (packaging/windows/windows.cmake).
    (void)argc;
    (void)argv;
    _putenv_s("OMP_WAIT_POLICY", "PASSIVE");
#else
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    std::vector<char*> args(argv, argv + argc);
    args.push_back(nullptr);
    execv("/proc/self/exe", args.data());
    // execv failed (no /proc): carry on with the spinning policy rather than not at all.
#endif
}

int configureRuntime(int threads) {
    if (threads <= 0) {
        if (const char* env = std::getenv("HALFSCOPE_THREADS")) threads = std::atoi(env);
    }
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    setConfiguredThreads(threads);
    at::globalContext().setFlushDenormal(true);
    // fp32 means fp32 on a GPU too: LibTorch lets cuDNN's convolutions (and, where asked,
    // cuBLAS's matmuls) round their inputs to TF32 (10 mantissa bits) on Ampere and later, which
    // moves an fp32 reference by ~1e-3 and would blur where fp16 or bf16 first differs from it.
    // Both setters only store a flag, so they are harmless in a CPU build.
    at::globalContext().setAllowTF32CuBLAS(false);
    at::globalContext().setAllowTF32CuDNN(false);
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
