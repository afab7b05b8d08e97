// Converting one ~300 MB stored tensor (a T5-XXL token embedding is 32128 x 4096) the way a load
// does, side by side in one run: in one copy (chunk size 0) and in 32 MB slices along dim 0 with a
// cancel check and a progress note between slices (what convertWeight does). Cases: bf16 -> fp32
// from a warm page cache, the same from a cold file (its pages dropped with posix_fadvise before
// each conversion), and fp32 -> emulated fp16 (a cast plus a rounding pass). Median of 5 runs,
// alternating the two ways; wall time and process CPU time. Peak: the growth of VmHWM (the
// resident high-water mark) over the resident size before one conversion, in a fresh process
// of its own (this program again, with --peak), so no allocator holds memory from an earlier
// run; the file's pages count too once read through the mapping (the same in both ways).
// Usage: bench_chunked_convert [folder for the 300 MB files]
#include <fcntl.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "base/cancel.h"
#include "bench_timing.h"
#include "io/safetensors.h"
#include "models/common/weight_convert.h"

namespace {

using hs::bench::cpuMs;
using hs::bench::median;
using hs::bench::procStatusMb;
using hs::bench::wallMs;

// Resets VmHWM to the current resident size (Linux: "5" to clear_refs), so each run's peak is its
// own.
void resetPeak() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

// Drops the file's clean pages from the page cache (no root needed), so the next read faults.
void dropCache(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

struct Case {
    const char* name;
    std::string path;
    const char* plan;
    bool cold;
};

}  // namespace

// One conversion in this process: the growth of its resident peak, in MB.
double peakOfOne(const std::string& path, const char* plan, uint64_t chunkBytes, bool cold) {
    hs::TensorSet set = hs::TensorSet::open(path);
    const torch::Tensor stored = set.tensor("w");
    const hs::PrecisionPolicy policy(hs::PrecisionPlan::parse(plan), torch::kCPU);
    if (cold) dropCache(path);
    resetPeak();
    const double rss = procStatusMb("VmRSS");
    torch::Tensor v =
        hs::convertWeightInChunks(stored, torch::kFloat32, true, "t", "w", policy, chunkBytes);
    return procStatusMb("VmHWM") - rss;
}

// Runs `peakOfOne` in a child process (this program with --peak) and reads its answer.
double peakInChild(const std::string& path, const char* plan, uint64_t chunkBytes, bool cold) {
    const std::string cmd = "/proc/" + std::to_string(::getpid()) + "/exe --peak " + path + " " +
                            plan + " " + std::to_string(chunkBytes) + " " + (cold ? "1" : "0");
    FILE* p = ::popen(cmd.c_str(), "r");
    double mb = -1;
    if (p) {
        if (std::fscanf(p, "%lf", &mb) != 1) mb = -1;
        ::pclose(p);
    }
    return mb;
}

int main(int argc, char** argv) {
    at::set_num_threads(1);  // the loader thread converts on one core
    if (argc == 6 && std::string(argv[1]) == "--peak") {
        std::printf("%.1f\n", peakOfOne(argv[2], argv[3], std::stoull(argv[4]), argv[5][0] == '1'));
        return 0;
    }
    const std::string dir = argc > 1 ? argv[1] : std::filesystem::temp_directory_path().string();
    const int64_t rows = 38400, cols = 4096;
    const std::string bf16 = dir + "/bench-chunked-bf16.safetensors";
    const std::string fp32 = dir + "/bench-chunked-fp32.safetensors";
    hs::writeSafetensors(bf16, {{"w", torch::randn({rows, cols}).to(torch::kBFloat16)}});
    hs::writeSafetensors(fp32, {{"w", torch::randn({rows / 2, cols})}});  // 300 MB of fp32
    const std::atomic<bool> never{false};
    const hs::CancelScope scope(&never);  // the check a load makes, never set

    const Case cases[] = {
        {"bf16 -> fp32, warm", bf16, "t*=fp32", false},
        {"bf16 -> fp32, cold file", bf16, "t*=fp32", true},
        {"fp32 -> fp16 (emulated), warm", fp32, "t*=fp16", false},
    };
    std::printf("%-32s %-9s %9s %9s %9s\n", "case", "way", "wall ms", "cpu ms", "peak +MB");
    for (const auto& c : cases) {
        std::optional<hs::TensorSet> set = hs::TensorSet::open(c.path);
        torch::Tensor stored = set->tensor("w");
        const hs::PrecisionPolicy policy(hs::PrecisionPlan::parse(c.plan), torch::kCPU);
        std::vector<double> wall[2], cpu[2];
        double peak[2];
        for (int way = 0; way < 2; ++way)
            peak[way] = peakInChild(c.path, c.plan, way == 0 ? 0 : hs::kWeightChunkBytes, c.cold);
        for (int rep = 0; rep < 6; ++rep) {
            for (int way = 0; way < 2; ++way) {
                if (c.cold) {  // pages mapped here are not dropped: unmap, drop, map again
                    stored = torch::Tensor();
                    set.reset();
                    dropCache(c.path);
                    set = hs::TensorSet::open(c.path);
                    stored = set->tensor("w");
                }
                const auto t0 = std::chrono::steady_clock::now();
                const double c0 = cpuMs();
                torch::Tensor v =
                    hs::convertWeightInChunks(stored, torch::kFloat32, true, "t", "w", policy,
                                              way == 0 ? 0 : hs::kWeightChunkBytes);
                const double w = wallMs(t0), cp = cpuMs() - c0;
                if (rep > 0) {  // the first run of each way warms the allocator
                    wall[way].push_back(w);
                    cpu[way].push_back(cp);
                }
            }
        }
        for (int way = 0; way < 2; ++way)
            std::printf("%-32s %-9s %9.1f %9.1f %9.0f\n", c.name, way ? "32 MB" : "one-shot",
                        median(wall[way]), median(cpu[way]), peak[way]);
        std::printf("%-32s %-9s %9.3f\n", c.name, "ratio", median(wall[1]) / median(wall[0]));
    }
    std::filesystem::remove(bf16);
    std::filesystem::remove(fp32);
    return 0;
}
