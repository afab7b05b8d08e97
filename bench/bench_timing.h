#pragma once
// Timing helpers the benchmarks share.
#include <time.h>

#include <algorithm>
#include <vector>

namespace hs::bench {

// CPU time of the whole process (all threads), in ms: less sensitive than wall time to other
// programs competing for the cores, which is how these benchmarks are usually run.
inline double cpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace hs::bench
