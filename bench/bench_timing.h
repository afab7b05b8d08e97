#pragma once
// Timing helpers the benchmarks share.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
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

// Wall time since t0, in ms.
inline double wallMs(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A field of /proc/self/status given in kB ("VmRSS", "VmHWM", "RssAnon", ...), in MB; 0 where
// there is none.
inline double procStatusMb(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field, 0) == 0) return std::stod(line.substr(line.find(':') + 1)) / 1024;
    return 0;
}

}  // namespace hs::bench
