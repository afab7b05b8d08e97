// Cosmos transformer (diffusers CosmosTransformer3DModel, Cosmos-Predict2 / Anima's denoiser)
// against a plain-PyTorch port of it (bench/reference/cosmos_reference.py) on the same weights,
// dtype and threads, measured side by side in one run: fp32, bf16 as oneDNN runs it (what
// Python's bf16 does; only where the CPU has bf16 instructions) and optionally bf16 emulated,
// each with probes off vs layer level.
//   /usr/bin/python3 bench/reference/cosmos_reference.py make DIR
//       (Cosmos-Predict2-2B's width with 2 of its 28 blocks; a 512 x 512 image, 512 text tokens)
//   bench_cosmos DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed forwards of each kind per setting, after one warm-up (default 3)
//     --inputs     default DIR/inputs.safetensors
//     --emulated   also time bf16 emulated (fp32 compute, every probe point rounded to bf16),
//                  Halfscope's CPU default; Python has no counterpart
//     --compare    first check that the C++ fp32 output matches the port's (relative error
//                  <= 1e-4, cosmos_reference.py compare)
//     --no-python  C++ timings only
// The port runs in a second process (cosmos_reference.py serve) and the forwards alternate:
// ours probes off, ours layer probes, the port's; so load from other programs on a shared
// machine hits all three alike. Medians of wall and process CPU time; ours/theirs compares
// probes off with the port. Targets: ours/theirs <= 0.9, layer probes / off <= 1.05.
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
    return hs::bench::referenceScript("cosmos_reference.py");
}

using Port = hs::bench::Port;

struct Setting {
    const char* label;
    Format format;
    Execution bf16;
    const char* python;  // the port's dtype, or null for none
};

}  // namespace

int main(int argc, char** argv) {
    ensurePassiveOmpWait(argc, argv);
    const int threads = configureRuntime();
    std::signal(SIGPIPE, SIG_IGN);  // a port that died is reported, not fatal
    std::string dir, inputPath;
    int runs = 3;
    bool emulated = false, compare = false, python = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--inputs" && i + 1 < argc)
            inputPath = argv[++i];
        else if (a == "--emulated")
            emulated = true;
        else if (a == "--compare")
            compare = true;
        else if (a == "--no-python")
            python = false;
        else if (dir.empty())
            dir = a;
        else
            runs = std::max(1, std::atoi(a.c_str()));
    }
    if (dir.empty()) {
        std::fprintf(stderr,
                     "usage: bench_cosmos DIR [runs] [--inputs FILE] [--emulated] [--compare] "
                     "[--no-python]\n(make DIR with: %s %s make DIR)\n",
                     kPython, referenceScript().c_str());
        return 2;
    }
    if (inputPath.empty()) inputPath = dir + "/inputs.safetensors";
    torch::NoGradGuard noGrad;

    const ComponentFolder folder = openComponent(dir);
    const auto family = FamilyRegistry::global().require(folder.className, dir + "/config.json");
    const ComponentSource source{folder.dir, folder.config, weightMapOf(folder.weights)};
    const TensorSet inputSet = TensorSet::open(inputPath);
    NamedTensors in;
    for (const auto& name : inputSet.names())
        if (name.rfind("in.", 0) == 0) in[name] = inputSet.tensor(name);
    const auto& c = folder.config;
    const auto x = in.at("in.hidden_states");
    std::printf(
        "Cosmos transformer %s: %d heads x %d, %d layers, mlp_ratio %.1f, latents %s, %lld text "
        "tokens, %d threads, median of %d runs\n",
        dir.c_str(), c.value("num_attention_heads", 0), c.value("attention_head_dim", 0),
        c.value("num_layers", 0), c.value("mlp_ratio", 0.0), shapeText(x.sizes()).c_str(),
        (long long)in.at("in.encoder_hidden_states").size(1), threads, runs);

    std::vector<Setting> settings{{"fp32", Format::FP32, Execution::Emulated, "fp32"}};
    if (cpuHasBf16Instructions())
        settings.push_back({"bf16 native", Format::BF16, Execution::Native, "bf16"});
    else
        std::printf(
            "  (no bf16 instructions here: oneDNN's bf16, which Python runs, is not "
            "timed)\n");
    if (emulated) settings.push_back({"bf16 emulated", Format::BF16, Execution::Emulated, nullptr});

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
            const std::string out = "/tmp/bench_cosmos_output.safetensors";
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
