// UNet2DConditionModel (diffusers, SD 1.5's widths) against a plain-PyTorch port of it
// (bench/reference/unet_reference.py) on the same weights, dtype and threads, measured side by
// side in one run: fp32, bf16 as oneDNN runs it (what Python's bf16 does; only where the CPU has
// bf16 instructions) and optionally the emulated formats, each with probes off vs layer level.
//   bench_unet [DIR] [runs] [--emulated] [--compare] [--no-python]
//     DIR          default /tmp/halfscope_bench_unet; made when it holds no config.json with
//                  /usr/bin/python3 bench/reference/unet_reference.py make DIR
//                  (block_out_channels [320, 640, 1280, 1280], 8 heads, 1 resnet per block,
//                  768-wide context of 77 tokens, a 2 x 4 x 32 x 32 latent: a guided step of a
//                  256 x 256 image; `make DIR --layers 2 --size 64` gives SD 1.5 at 512 x 512)
//     runs         timed forwards of each kind per setting, after one warm-up (default 3)
//     --emulated   also time fp16 and bf16 emulated (fp32 compute, every probe point rounded),
//                  Halfscope's CPU fp16; Python has no counterpart
//     --compare    first check that the C++ fp32 output matches the port's (relative error
//                  <= 1e-4, unet_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (unet_reference.py serve: OMP_NUM_THREADS = our threads,
// passive waits, weights loaded once) and the forwards alternate: ours probes off, ours layer
// probes, the port's; so load from other programs on a shared machine hits all three alike.
// Medians of wall and process CPU time; ours/theirs compares probes off with the port.
// Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
#include <sys/stat.h>
#include <sys/wait.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.h"
#include "io/model_folder.h"
#include "io/safetensors.h"
#include "models/registry.h"
#include "numerics/cpu_bf16.h"
#include "python_port.h"
#include "runtime/runtime.h"

using namespace hs;
using hs::bench::cpuMs;
using hs::bench::forwardMs;
using hs::bench::kPython;
using hs::bench::median;
using hs::bench::Timing;

namespace {

std::string referenceScript() {
    return hs::bench::referenceScript("unet_reference.py");
}

using Port = hs::bench::Port;

struct Setting {
    const char* label;
    Format format;
    Execution bf16;
    const char* python;  // the port's dtype, or null for none
};

bool exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int threads = configureRuntime();
    std::signal(SIGPIPE, SIG_IGN);  // a port that died is reported, not fatal
    std::string dir;
    int runs = 3;
    bool emulated = false, compare = false, python = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--emulated")
            emulated = true;
        else if (a == "--compare")
            compare = true;
        else if (a == "--no-python")
            python = false;
        else if (dir.empty() && !std::isdigit(static_cast<unsigned char>(a[0])))
            dir = a;
        else
            runs = std::max(1, std::atoi(a.c_str()));
    }
    if (dir.empty()) dir = "/tmp/halfscope_bench_unet";
    if (!exists(dir + "/config.json")) {
        std::printf("making %s (random weights, SD 1.5 widths)...\n", dir.c_str());
        std::fflush(stdout);
        std::string text;
        if (Port(referenceScript(), {"make", dir}, threads).finish(&text) != 0) {
            std::printf("%s", text.c_str());
            return 1;
        }
    }
    const std::string inputPath = dir + "/inputs.safetensors";
    torch::NoGradGuard noGrad;

    const ComponentFolder folder = openComponent(dir);
    const auto family = FamilyRegistry::global().require(folder.className, dir + "/config.json");
    const ComponentSource source{folder.dir, folder.config, weightMapOf(folder.weights)};
    const TensorSet inputSet = TensorSet::open(inputPath);
    NamedTensors in;
    for (const auto& name : inputSet.names())
        if (name.rfind("in.", 0) == 0) in[name] = inputSet.tensor(name);
    const auto& c = folder.config;
    const auto sample = in.at("in.sample");
    const auto ctx = in.at("in.encoder_hidden_states");
    std::printf(
        "UNet2DConditionModel %s: block_out_channels %s, %d resnets per block, heads %s, "
        "sample %lld x %lld x %lld x %lld, context %lld x %lld, %d threads, median of %d runs\n",
        dir.c_str(), c["block_out_channels"].dump().c_str(), c.value("layers_per_block", 0),
        c["attention_head_dim"].dump().c_str(), (long long)sample.size(0),
        (long long)sample.size(1), (long long)sample.size(2), (long long)sample.size(3),
        (long long)ctx.size(1), (long long)ctx.size(2), threads, runs);

    std::vector<Setting> settings{{"fp32", Format::FP32, Execution::Emulated, "fp32"}};
    if (cpuHasBf16Instructions())
        settings.push_back({"bf16 native", Format::BF16, Execution::Native, "bf16"});
    else
        std::printf(
            "  (no bf16 instructions here: oneDNN's bf16, which Python runs, is not timed)\n");
    if (emulated) {
        settings.push_back({"fp16 emulated", Format::FP16, Execution::Emulated, nullptr});
        settings.push_back({"bf16 emulated", Format::BF16, Execution::Emulated, nullptr});
    }

    struct Result {
        double layerOff = 0, oursTheirs = -1;
    };
    std::vector<Result> results;
    for (const Setting& s : settings) {
        const PrecisionPolicy policy(
            PrecisionPlan::parse(family->defaultComponent + "=" + formatName(s.format)),
            torch::kCPU, s.bf16);
        auto model = loadComponent(*family, source, policy, family->defaultComponent);
        ProbeContext pOff(policy, ProbeLevel::Off), pLayer(policy, ProbeLevel::Layer);
        forwardMs(*model, in, pOff);  // warm-up (oneDNN primitives, allocator)
        if (compare && s.format == Format::FP32) {
            const std::string out = "/tmp/bench_unet_output.safetensors";
            const auto y = model->run(in, pOff).at("out.sample");
            pOff.takeRecords();
            writeSafetensors(out, {{"out.sample", y}});
            std::string text;
            const int status =
                Port(referenceScript(), {"compare", dir, inputPath, out}, threads).finish(&text);
            std::printf("  compare: %s", text.c_str());
            if (status != 0) return 1;
        }
        model->run(in, pLayer);
        const size_t records = pLayer.takeRecords().size();
        std::unique_ptr<Port> port;
        if (python && s.python) {
            port = std::make_unique<Port>(
                referenceScript(), std::vector<std::string>{"serve", dir, inputPath, s.python},
                threads);
            if (!port->ready()) port.reset();
        }
        std::vector<double> wOff, wLayer, wPy, cOff, cLayer, cPy;
        for (int r = 0; r < runs; ++r) {
            const Timing a = forwardMs(*model, in, pOff);
            const Timing b = forwardMs(*model, in, pLayer);
            wOff.push_back(a.wall), cOff.push_back(a.cpu);
            wLayer.push_back(b.wall), cLayer.push_back(b.cpu);
            if (port) {
                const Timing p = port->forward();
                if (p.wall > 0) wPy.push_back(p.wall), cPy.push_back(p.cpu);
            }
        }
        port.reset();
        Result res;
        res.layerOff = median(wLayer) / median(wOff);
        std::printf(
            "  %-13s ours: off %8.1f ms, layer %8.1f ms, layer/off %.3f (cpu %.3f, %zu records)",
            s.label, median(wOff), median(wLayer), res.layerOff, median(cLayer) / median(cOff),
            records);
        if (!wPy.empty()) {
            res.oursTheirs = median(wOff) / median(wPy);
            std::printf(" | python %8.1f ms | ours/theirs %.2f (cpu %.2f)", median(wPy),
                        res.oursTheirs, median(cOff) / median(cPy));
        }
        std::printf("\n");
        std::fflush(stdout);
        results.push_back(res);
    }
    std::printf("targets: ours/theirs <= 0.90, layer probes / off <= 1.05\n");
    for (size_t i = 0; i < settings.size(); ++i) {
        const Result& r = results[i];
        std::printf("  %-13s layer/off %.3f %s", settings[i].label, r.layerOff,
                    r.layerOff <= 1.05 ? "met" : "NOT met");
        if (r.oursTheirs > 0)
            std::printf(", ours/theirs %.2f %s", r.oursTheirs,
                        r.oursTheirs <= 0.9 ? "met" : "NOT met");
        std::printf("\n");
    }
    return 0;
}
