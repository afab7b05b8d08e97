#pragma once
// How many intra-op threads a model call uses, decided by the size of its work.
//
// LibTorch's OpenMP backend forks and joins its threads at every op of more than 32768 elements,
// and OpenBLAS at every matrix product. With the passive waits a desktop needs (runtime.h), each
// fork/join costs tens of microseconds of futex wake-ups. A small model's forward makes ~300 of
// them for ops that take ~10 us each and so runs slower on two threads than on one: the demo
// transformer took 20 ms on two threads against 15 ms on one (52 ms against 16 ms with another
// program busy on one core), and still 18 ms when only its matrix products were split. A
// SmallWork scope therefore runs a whole model call on the calling thread when its typical matrix
// product is small.
#include <cstdint>

namespace hs {

// Sets the calling thread's intra-op threads (OpenMP's per-thread setting, which LibTorch and
// OpenBLAS read at each op) for a scope, and restores them on exit.
class ThreadScope {
public:
    explicit ThreadScope(int threads);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    int m_old;
};

// The thread count configureRuntime() chose for the process.
int configuredThreads();
void setConfiguredThreads(int threads);

// Below this many multiply-adds in a call's typical matrix product (a transformer's MLP
// up-projection, a VAE's widest convolution), one thread is as fast or faster. Measured with two
// passive threads against one: the demo transformer at batch 2, 4, 8 (28M, 57M, 113M: 1 thread
// faster or equal) and 16 (226M: 2 threads up to 1.15x faster), the bench_flux stack (189M with
// 1280-token attention: 1.86x faster).
constexpr int64_t kSplitWorthMacs = int64_t(1) << 27;

// One thread for a call whose typical matrix product has fewer than kSplitWorthMacs
// multiply-adds, the configured count otherwise. setSmallWorkOnOneThread(false) gives every call
// the configured count (bench_generate measures both).
void setSmallWorkOnOneThread(bool on);
class SmallWork : public ThreadScope {
public:
    explicit SmallWork(int64_t typicalMacs);
};

}  // namespace hs
