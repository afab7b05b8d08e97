// Wan 2.1 / Qwen-Image VAE decode (diffusers AutoencoderKLQwenImage / AutoencoderKLWan, one
// frame) against the plain-PyTorch port (bench/reference/wan_vae_reference.py, which runs
// diffusers' causal Conv3d kernels over the zero-padded frame) on the same weights, dtype and
// threads, side by side in one run: fp32, bf16 as oneDNN runs it (only where the CPU has bf16
// instructions) and optionally bf16 emulated, each with probes off vs layer level.
//   /usr/bin/python3 bench/reference/wan_vae_reference.py make DIR   (Qwen-Image widths, 32x32)
//   bench_wan_vae DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]
//     runs         timed decodes of each kind per setting, after one warm-up (default 3)
//     --inputs     default DIR/inputs.safetensors (in.z [1, 16, 1, 32, 32] -> 256x256)
//     --emulated   also time bf16 emulated (fp32 compute, every probe point rounded to bf16)
//     --compare    first check that the C++ fp32 output matches the port's (<= 1e-4)
//     --no-python  C++ timings only
// The port runs in a second process (serve: OMP_NUM_THREADS = our threads, passive waits,
// weights loaded once) and the decodes alternate: ours probes off, ours layer probes, the
// port's. Medians of wall and process CPU time; ours/theirs compares probes off with the port.
#include <torch/torch.h>

#include <algorithm>
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
using hs::bench::forwardMs;
using hs::bench::kPython;
using hs::bench::median;
using hs::bench::Port;
using hs::bench::Timing;

namespace {

std::string referenceScript() {
    return hs::bench::referenceScript("wan_vae_reference.py");
}

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
                     "usage: bench_wan_vae DIR [runs] [--inputs FILE] [--emulated] [--compare] "
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
    const NamedTensors in{{"in.z", inputSet.tensor("in.z")}};  // decode only
    const auto& z = in.at("in.z");
    std::printf("%s %s: base_dim %d, z_dim %d, decode %s, %d threads, median of %d runs\n",
                folder.className.c_str(), dir.c_str(), folder.config.value("base_dim", 96),
                folder.config.value("z_dim", 16), shapeText(z.sizes()).c_str(), threads, runs);

    std::vector<Setting> settings{{"fp32", Format::FP32, Execution::Emulated, "fp32"}};
    if (cpuHasBf16Instructions())
        settings.push_back({"bf16 native", Format::BF16, Execution::Native, "bf16"});
    else
        std::printf(
            "  (no bf16 instructions here: oneDNN's bf16, which Python runs, is not "
            "timed)\n");
    if (emulated) settings.push_back({"bf16 emulated", Format::BF16, Execution::Emulated, nullptr});

    for (const Setting& s : settings) {
        const PrecisionPolicy policy(
            PrecisionPlan::parse(family->defaultComponent + "=" + formatName(s.format)),
            torch::kCPU, s.bf16);
        auto model = loadComponent(*family, source, policy, family->defaultComponent);
        ProbeContext pOff(policy, ProbeLevel::Off), pLayer(policy, ProbeLevel::Layer);
        forwardMs(*model, in, pOff);  // warm-up (oneDNN primitives, allocator)
        if (compare && s.format == Format::FP32) {
            const std::string out = "/tmp/bench_wan_vae_output.safetensors";
            const auto y = model->run(in, pOff).at("out.decode.sample");
            pOff.takeRecords();
            writeSafetensors(out, {{"out.decode.sample", y}});
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
        std::printf(
            "  %-13s ours: off %8.1f ms, layer %8.1f ms, layer/off %.3f (cpu %.3f, %zu records)",
            s.label, median(wOff), median(wLayer), median(wLayer) / median(wOff),
            median(cLayer) / median(cOff), records);
        if (!wPy.empty())
            std::printf(" | python %8.1f ms | ours/theirs %.2f (cpu %.2f)", median(wPy),
                        median(wOff) / median(wPy), median(cOff) / median(cPy));
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}
