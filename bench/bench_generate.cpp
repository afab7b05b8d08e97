// One 20-step generation with guidance on the demo model, text encoding and VAE decode included,
// with every component in fp32 (also with its small model calls on every thread instead of one),
// in bf16 (emulated, and native where the CPU has bf16 instructions) and in fp16 (emulated),
// probes off and at layer level: interleaved repetitions,
// medians of wall and process CPU time, ratios side by side. Then the whole process: the median
// wall time of `halfscope-cli generate` against the generation time it reports.
//   bench_generate [repetitions=7] [steps=20]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "numerics/cpu_bf16.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"
#include "runtime/devices.h"
#include "runtime/parallelism.h"
#include "runtime/runtime.h"

using namespace hs;
using hs::bench::cpuMs;
using hs::bench::median;
using Clock = std::chrono::steady_clock;

namespace {

const char* kPrompt = "a large red circle on the left and a small blue square, yellow background";

struct Setting {
    std::string name;  // "fp32", "bf16 emulated", ...
    std::string format;
    CpuBf16 mode;
    bool smallOnOne;  // small model calls on one thread (the default) or on every thread
    ProbeLevel level;
    std::unique_ptr<Pipeline> pipeline;
    std::vector<double> wall, cpu;
};

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Wall time of one `halfscope-cli generate` process and the run time it printed, in ms.
bool timeProcess(const std::string& cli, const std::string& plan, int steps, double& wall,
                 double& run) {
    const std::string cmd = "'" + cli + "' generate --out /tmp/halfscope-bench-generate.png" +
                            " --steps " + std::to_string(steps) + " --prompt '" + kPrompt +
                            "' --plan '" + plan + "' 2>/dev/null";
    const auto t0 = Clock::now();
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return false;
    char line[512];
    run = -1;
    while (std::fgets(line, sizeof line, p)) {
        double s = 0;
        if (std::sscanf(line, "wrote %*s in %lf s", &s) == 1) run = s * 1e3;
    }
    pclose(p);
    wall = msSince(t0);
    return run >= 0;
}

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    const int steps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
    const int threads = configureRuntime(0);
    const std::string dir = findDemoModel();
    if (dir.empty()) {
        std::fprintf(stderr, "the demo model was not found\n");
        return 2;
    }
    const CpuInfo cpu = cpuInfo();
    std::vector<Setting> settings;
    auto add = [&](const std::string& name, const std::string& format, CpuBf16 mode,
                   bool smallOnOne = true) {
        for (ProbeLevel l : {ProbeLevel::Off, ProbeLevel::Layer}) {
            setCpuBf16Mode(mode);
            Setting s{name, format, mode, smallOnOne, l, nullptr, {}, {}};
            const std::string plan =
                "text_encoder=" + format + ",transformer=" + format + ",vae=" + format;
            s.pipeline =
                Pipeline::load(dir, PrecisionPlan::parse(plan), torch::Device(torch::kCPU));
            settings.push_back(std::move(s));
        }
    };
    add("fp32", "fp32", CpuBf16::Emulated);
    add("fp32 all thr.", "fp32", CpuBf16::Emulated, false);
    add("bf16 emulated", "bf16", CpuBf16::Emulated);
    if (cpuHasBf16Instructions()) add("bf16 native", "bf16", CpuBf16::Native);
    add("fp16 emulated", "fp16", CpuBf16::Emulated);
    setCpuBf16Mode(CpuBf16::Emulated);
    setSmallWorkOnOneThread(true);

    RunConfig cfg;
    cfg.prompt = kPrompt;
    cfg.steps = steps;
    cfg.guidance = 4.0;  // classifier-free guidance: two transformer passes per step (batch 2)
    const RunDefaults size = settings.front().pipeline->defaults();  // the demo model's own
    if (size.width) cfg.width = size.width, cfg.height = size.height;
    for (auto& s : settings) {
        cfg.probeLevel = s.level;
        setSmallWorkOnOneThread(s.smallOnOne);
        s.pipeline->run(cfg);  // warm-up
    }
    for (int r = 0; r < reps; ++r)
        for (auto& s : settings) {
            cfg.probeLevel = s.level;
            setSmallWorkOnOneThread(s.smallOnOne);
            const double c0 = cpuMs();
            const auto t0 = Clock::now();
            s.pipeline->run(cfg);
            s.wall.push_back(msSince(t0));
            s.cpu.push_back(cpuMs() - c0);
        }
    std::printf("CPU %s (%s)%s, %d threads\n", cpu.model.c_str(), cpuFeatureText(cpu).c_str(),
                cpuHasBf16Instructions() ? "" : ", run as one without bf16 instructions", threads);
    std::printf(
        "demo model, 64 x 64, %d steps with guidance 4, text encoding and VAE decode included; "
        "median of %d runs\n",
        steps, reps);
    const double fp32 = median(settings[0].wall);
    for (size_t i = 0; i < settings.size(); i += 2) {
        const auto& off = settings[i];
        const auto& on = settings[i + 1];
        std::printf(
            "  %-14s probes off %7.1f ms (cpu %7.1f)  layer probes %7.1f ms (cpu %7.1f)  "
            "probe cost %.3fx  vs fp32 %.2fx\n",
            off.name.c_str(), median(off.wall), median(off.cpu), median(on.wall), median(on.cpu),
            median(on.cpu) / median(off.cpu), median(off.wall) / fp32);
    }

    // The whole process, as a user runs it: start-up, loading, the run, the PNG.
    const auto cli =
        std::filesystem::path(argv[0]).parent_path().parent_path() / "app" / "halfscope-cli";
    if (!std::filesystem::exists(cli)) {
        std::printf("(no %s: whole-process times skipped)\n", cli.c_str());
        return 0;
    }
    std::printf("whole process, `halfscope-cli generate` (stored bf16, emulated), median of %d\n",
                reps);
    std::vector<double> wall, run;
    for (int r = 0; r < reps; ++r) {
        double w = 0, g = 0;
        if (!timeProcess(cli.string(), "", steps, w, g)) {
            std::printf("  halfscope-cli generate failed\n");
            return 1;
        }
        wall.push_back(w);
        run.push_back(g);
    }
    std::printf(
        "  wall %7.1f ms, generation it reports %7.1f ms, outside the generation %7.1f ms\n",
        median(wall), median(run), median(wall) - median(run));
    return 0;
}
