#include "runtime/parallelism.h"

#include <omp.h>

#include <atomic>

namespace hs {

namespace {
std::atomic<int> g_threads{0};
std::atomic<bool> g_smallOnOne{true};
}  // namespace

ThreadScope::ThreadScope(int threads) : m_old(omp_get_max_threads()) {
    if (threads > 0 && threads != m_old) omp_set_num_threads(threads);
}

ThreadScope::~ThreadScope() {
    if (omp_get_max_threads() != m_old) omp_set_num_threads(m_old);
}

int configuredThreads() {
    const int n = g_threads.load();
    return n > 0 ? n : omp_get_max_threads();
}

void setConfiguredThreads(int threads) {
    g_threads.store(threads);
}

void setSmallWorkOnOneThread(bool on) {
    g_smallOnOne.store(on);
}

SmallWork::SmallWork(int64_t typicalMacs)
    : ThreadScope(g_smallOnOne.load() && typicalMacs < kSplitWorthMacs ? 1 : configuredThreads()) {}

}  // namespace hs
