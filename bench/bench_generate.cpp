// One 20-step generation with guidance on the demo model, text encoding and VAE decode included,
// in fp32 and bf16, probes off and at layer level: interleaved repetitions, medians of wall and
// process CPU time, ratios side by side.
//   bench_generate [repetitions=7] [steps=20]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "pipeline/pipeline.h"
#include "runtime/demo_location.h"
#include "runtime/runtime.h"

using namespace hs;
using hs::bench::cpuMs;
using hs::bench::median;

namespace {}  // namespace

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
    struct Setting {
        const char* name;
        std::string plan;
        ProbeLevel level;
        std::unique_ptr<Pipeline> pipeline;
        std::vector<double> wall, cpu;
    };
    std::vector<Setting> settings;
    for (const char* f : {"fp32", "bf16"})
        for (ProbeLevel l : {ProbeLevel::Off, ProbeLevel::Layer}) {
            Setting s{f,  std::string("text_encoder=") + f + ",transformer=" + f + ",vae=" + f,
                      l,  nullptr,
                      {}, {}};
            s.pipeline =
                Pipeline::load(dir, PrecisionPlan::parse(s.plan), torch::Device(torch::kCPU));
            settings.push_back(std::move(s));
        }
    RunConfig cfg;
    cfg.prompt = "a large red circle on the left and a small blue square, yellow background";
    cfg.steps = steps;
    cfg.guidance = 4.0;  // classifier-free guidance: two transformer passes per step (batch 2)
    for (auto& s : settings) {
        cfg.probeLevel = s.level;
        s.pipeline->run(cfg);  // warm-up
    }
    for (int r = 0; r < reps; ++r)
        for (auto& s : settings) {
            cfg.probeLevel = s.level;
            const double c0 = cpuMs();
            const auto t0 = std::chrono::steady_clock::now();
            s.pipeline->run(cfg);
            s.wall.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count());
            s.cpu.push_back(cpuMs() - c0);
        }
    std::printf(
        "demo model, 64 x 64, %d steps with guidance 4, text encoding and VAE decode "
        "included; %d threads, median of %d runs\n",
        steps, threads, reps);
    for (size_t i = 0; i < settings.size(); i += 2) {
        const auto& off = settings[i];
        const auto& on = settings[i + 1];
        std::printf(
            "  %s  probes off %7.1f ms (cpu %7.1f)   layer probes %7.1f ms (cpu %7.1f)   "
            "probe cost %.3fx\n",
            off.name, median(off.wall), median(off.cpu), median(on.wall), median(on.cpu),
            median(on.cpu) / median(off.cpu));
    }
    std::printf("  bf16 / fp32 (probes off): %.2f\n",
                median(settings[2].wall) / median(settings[0].wall));
    return 0;
}
