// bench_engine: costs of the engine's hot paths, each measured side by side with a baseline in
// the same run, printed as ratios (absolute times vary with the machine and its load; ratios
// much less so).
//   (a) hs::computeStats on 16M float32 vs x.clone()          target <= 3x
//   (b) hs::roundTo(x, FP16) vs x.clone()
//   (c) SafetensorsFile::open + reading every tensor of a >= 1 GiB file vs `cat FILE >/dev/null`,
//       both with the file already in the page cache                  target <= 1.2x
// Usage: bench_engine [--reps N] [--file PATH] [--threads N]
#include <sys/wait.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "numerics/format.h"
#include "numerics/tensor_stats.h"
#include "runtime/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(const std::function<void()>& fn) {
    auto t0 = Clock::now();
    fn();
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Runs every case once to warm up, then `reps` rounds of all cases interleaved (so that load
// from other processes hits every case alike) and returns each case's median.
std::vector<double> interleaved(int reps, const std::vector<std::function<void()>>& cases) {
    for (const auto& c : cases) c();
    std::vector<std::vector<double>> t(cases.size());
    for (int r = 0; r < reps; ++r)
        for (size_t k = 0; k < cases.size(); ++k) t[k].push_back(seconds(cases[k]));
    std::vector<double> med;
    for (auto& v : t) {
        std::sort(v.begin(), v.end());
        med.push_back(v[v.size() / 2]);
    }
    return med;
}

void row(const char* what, double t, double base, const char* baseName, double target) {
    const double ratio = t / base;
    std::printf("  %-50s %9.2f ms   %-10s %9.2f ms   ratio %5.2fx   target <= %.1fx  %s\n", what,
                t * 1e3, baseName, base * 1e3, ratio, target, ratio <= target ? "ok" : "MISSED");
}

// ~1 GiB: 60 float32 tensors of 4M elements and 8 bf16 tensors of 4M (like a bf16 checkpoint
// with some fp32 norms), written once and kept in /tmp.
void ensureFile(const std::string& path) {
    if (std::filesystem::exists(path)) return;
    std::cout << "creating " << path << " (once)...\n";
    std::vector<std::pair<std::string, torch::Tensor>> ts;
    torch::manual_seed(0);
    for (int i = 0; i < 60; ++i)
        ts.emplace_back("blocks." + std::to_string(i) + ".weight", torch::randn({2048, 2048}));
    for (int i = 0; i < 8; ++i)
        ts.emplace_back("bf16." + std::to_string(i) + ".weight",
                        torch::randn({2048, 2048}).to(torch::kBFloat16));
    hs::writeSafetensors(path, ts);
}

int system2(const std::string& cmd) {
    int s = std::system(cmd.c_str());
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

}  // namespace

int main(int argc, char** argv) {
    hs::ensurePassiveOmpWait(argc, argv);
    int reps = 7, threads = 0;
    std::string file = "/tmp/halfscope_bench_1g.safetensors";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--reps")
            reps = std::atoi(argv[i + 1]);
        else if (a == "--file")
            file = argv[i + 1];
        else if (a == "--threads")
            threads = std::atoi(argv[i + 1]);
    }
    const int used = hs::configureRuntime(threads);
    std::printf("bench_engine: %d LibTorch threads, median of %d reps\n\n", used, reps);

    // (a), (b): 16M float32 elements, values like activations with a few outliers.
    torch::manual_seed(1);
    auto x = torch::randn({16 << 20}) * 100;
    x.index_put_({torch::randint(0, 16 << 20, {1000})}, 1e6);
    // Two copy baselines: clone() allocates (64 MiB fresh pages: page faults included, as for
    // any new tensor) and copy_() into a preallocated tensor is pure memory traffic.
    auto dst = torch::empty_like(x);
    auto xb = x.to(torch::kBFloat16);  // the statistics of a bf16 run's activations
    const auto t = interleaved(reps, {
                                         [&] { auto c = x.clone(); },
                                         [&] { dst.copy_(x); },
                                         [&] { auto s = hs::computeStats(x); },
                                         [&] { auto r = hs::roundTo(x, hs::Format::FP16); },
                                         [&] { auto s = hs::computeStats(xb); },
                                     });
    std::printf("(a, b) 16M float32 (64 MiB)\n");
    row("computeStats(x)", t[2], t[0], "clone", 3.0);
    row("computeStats(x)", t[2], t[1], "copy_", 3.0);
    row("roundTo(x, FP16)", t[3], t[0], "clone", 3.0);
    row("roundTo(x, FP16)", t[3], t[1], "copy_", 3.0);
    row("computeStats(x as bf16)", t[4], t[2], "fp32 stats", 1.0);

    // (c) loading a >= 1 GiB file, page cache warm for both.
    ensureFile(file);
    const auto size = std::filesystem::file_size(file);
    const std::string cat = "cat '" + file + "' > /dev/null";
    if (system2(cat) != 0) {
        std::cerr << "cat failed\n";
        return 1;
    }
    auto loadSum = [&] {
        auto f = hs::SafetensorsFile::open(file);
        double s = 0;
        for (const auto& t : f->tensors()) s += f->tensor(t.name).sum().item<double>();
        if (s == 12345.678) std::puts("");  // keep the reads
    };
    auto loadPrefetchSum = [&] {
        auto f = hs::SafetensorsFile::open(file);
        double s = 0;
        for (const auto& t : f->tensors()) {
            f->prefetch(t.name);
            s += f->tensor(t.name).sum().item<double>();
        }
        if (s == 12345.678) std::puts("");
    };
    auto loadStats = [&] {
        auto f = hs::SafetensorsFile::open(file);
        int64_t n = 0;
        for (const auto& t : f->tensors()) {
            f->prefetch(t.name);
            n += hs::computeStats(f->tensor(t.name)).finite;
        }
        if (n == -1) std::puts("");
    };
    // The same sums over views whose pages are already mapped: the difference to loadSum is
    // the cost of the page faults.
    auto held = hs::SafetensorsFile::open(file);
    std::vector<torch::Tensor> views;
    for (const auto& t : held->tensors()) views.push_back(held->tensor(t.name));
    auto sumMapped = [&] {
        double s = 0;
        for (const auto& v : views) s += v.sum().item<double>();
        if (s == 12345.678) std::puts("");
    };
    const auto c = interleaved(reps, {
                                         [&] { system2(cat); },
                                         [&] { system2("true"); },
                                         [&] { auto f = hs::SafetensorsFile::open(file); },
                                         loadSum,
                                         loadStats,
                                         sumMapped,
                                         loadPrefetchSum,
                                     });
    const double tCat = c[0], tTrue = c[1], tOpen = c[2], tSum = c[3], tLoadStats = c[4];
    std::printf("\n(c) %s: %.2f GiB, page cache warm (cat ran first); system(\"true\") %.2f ms\n",
                file.c_str(), size / double(1 << 30), tTrue * 1e3);
    std::printf("  cat > /dev/null: %.2f ms = %.2f GiB/s\n", tCat * 1e3,
                size / double(1 << 30) / tCat);
    row("open + validate + map (no data read)", tOpen, tCat, "cat", 1.2);
    row("open + sum() over every tensor view", tSum, tCat, "cat", 1.2);
    row("open + prefetch + sum() of every tensor", c[6], tCat, "cat", 1.2);
    row("open + prefetch + computeStats() of every tensor", tLoadStats, tCat, "cat", 1.2);
    std::printf("  (sum() over views already faulted in: %.2f ms; page faults cost ~%.2f ms)\n",
                c[5] * 1e3, (tSum - c[5]) * 1e3);
    return 0;
}
