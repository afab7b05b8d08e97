#pragma once
// What the benchmarks that time a component against its plain-PyTorch port
// (bench/reference/*.py, see python_port.h) share: their arguments, the component folder with its
// inputs, and the timing of each setting (fp32; bf16 as oneDNN runs it, only where the CPU has
// bf16 instructions; the emulated formats on request) with probes off, layer probes and the
// port's forwards interleaved, then the targets summary.
#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdarg>
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

namespace hs::bench {

struct PortBenchArgs {
    std::string dir;        // the component folder the reference script made
    std::string inputPath;  // the in.* tensors; default DIR/inputs.safetensors
    int runs = 5;           // timed forwards of each kind per setting, after one warm-up
    bool emulated = false;  // also time the emulated formats
    bool compare = false;   // first check the fp32 output against the port's
    bool python = true;     // time the port too
};

// DIR [runs] [--inputs FILE] [--emulated] [--compare] [--no-python]. Without a DIR it prints the
// usage of `program` (with how `script` makes one) and returns false. With `defaultDir` the folder
// is optional (a first argument that starts with a digit is the runs) and the benchmark makes it
// itself, so its inputs are always DIR/inputs.safetensors and there is no --inputs.
inline bool parsePortBenchArgs(int argc, char** argv, const char* program,
                               const std::string& script, int defaultRuns, PortBenchArgs& args,
                               const char* defaultDir = nullptr) {
    args.runs = defaultRuns;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (!defaultDir && a == "--inputs" && i + 1 < argc)
            args.inputPath = argv[++i];
        else if (a == "--emulated")
            args.emulated = true;
        else if (a == "--compare")
            args.compare = true;
        else if (a == "--no-python")
            args.python = false;
        else if (args.dir.empty() &&
                 (!defaultDir || !std::isdigit(static_cast<unsigned char>(a[0]))))
            args.dir = a;
        else
            args.runs = std::max(1, std::atoi(a.c_str()));
    }
    if (args.dir.empty() && defaultDir) args.dir = defaultDir;
    if (args.dir.empty()) {
        std::fprintf(stderr,
                     "usage: %s DIR [runs] [--inputs FILE] [--emulated] [--compare] "
                     "[--no-python]\n(make DIR with: %s %s make DIR)\n",
                     program, kPython, script.c_str());
        return false;
    }
    if (args.inputPath.empty()) args.inputPath = args.dir + "/inputs.safetensors";
    return true;
}

// The component in DIR (not loaded yet: each setting loads it in its own precision) and the in.*
// tensors of the inputs file.
struct PortBenchModel {
    ComponentFolder folder;  // keeps the weights open; its config and className
    std::shared_ptr<const Family> family;
    ComponentSource source;
    NamedTensors in;
};

inline PortBenchModel loadPortBenchModel(const PortBenchArgs& args) {
    PortBenchModel m;
    m.folder = openComponent(args.dir);
    m.family = FamilyRegistry::global().require(m.folder.className, args.dir + "/config.json");
    m.source = {m.folder.dir, m.folder.config, weightMapOf(m.folder.weights)};
    const TensorSet inputSet = TensorSet::open(args.inputPath);
    for (const auto& name : inputSet.names())
        if (name.rfind("in.", 0) == 0) m.in[name] = inputSet.tensor(name);
    return m;
}

// Times every setting and prints a line for each, then (with `targetsSummary`) whether each met
// the targets. --compare writes `outputKey` (every output when empty) to
// /tmp/bench_<name>_output.safetensors for the port's `compare`. `emulatedFp16` adds fp16
// emulated before bf16 emulated. Returns main's exit code: 1 when the comparison failed.
inline int runPortBench(const PortBenchArgs& args, const PortBenchModel& m,
                        const std::string& script, const std::string& outputKey, const char* name,
                        int threads, bool emulatedFp16 = false, bool targetsSummary = true) {
    struct Setting {
        const char* label;
        Format format;
        Execution bf16;
        const char* python;  // the port's dtype, or null for none
    };
    std::signal(SIGPIPE, SIG_IGN);  // a port that died is reported, not fatal
    torch::NoGradGuard noGrad;
    std::vector<Setting> settings{{"fp32", Format::FP32, Execution::Emulated, "fp32"}};
    if (cpuHasBf16Instructions())
        settings.push_back({"bf16 native", Format::BF16, Execution::Native, "bf16"});
    else
        std::printf(
            "  (no bf16 instructions here: oneDNN's bf16, which Python runs, is not timed)\n");
    if (args.emulated) {
        if (emulatedFp16)
            settings.push_back({"fp16 emulated", Format::FP16, Execution::Emulated, nullptr});
        settings.push_back({"bf16 emulated", Format::BF16, Execution::Emulated, nullptr});
    }

    struct Result {
        double layerOff = 0, oursTheirs = -1;
    };
    std::vector<Result> results;
    const NamedTensors& in = m.in;
    for (const Setting& s : settings) {
        const PrecisionPolicy policy(
            PrecisionPlan::parse(m.family->defaultComponent + "=" + formatName(s.format)),
            torch::kCPU, s.bf16);
        auto model = loadComponent(*m.family, m.source, policy, m.family->defaultComponent);
        ProbeContext pOff(policy, ProbeLevel::Off), pLayer(policy, ProbeLevel::Layer);
        forwardMs(*model, in, pOff);  // warm-up (oneDNN primitives, allocator)
        if (args.compare && s.format == Format::FP32) {
            const std::string out = std::string("/tmp/bench_") + name + "_output.safetensors";
            const NamedTensors y = model->run(in, pOff);
            pOff.takeRecords();
            if (outputKey.empty())
                writeSafetensors(out, {y.begin(), y.end()});
            else
                writeSafetensors(out, {{outputKey, y.at(outputKey)}});
            std::string text;
            const int status =
                Port(script, {"compare", args.dir, args.inputPath, out}, threads).finish(&text);
            std::printf("  compare: %s", text.c_str());
            if (status != 0) return 1;
        }
        model->run(in, pLayer);
        const size_t records = pLayer.takeRecords().size();
        std::unique_ptr<Port> port;
        if (args.python && s.python) {
            port = std::make_unique<Port>(
                script, std::vector<std::string>{"serve", args.dir, args.inputPath, s.python},
                threads);
            if (!port->ready()) port.reset();
        }
        std::vector<double> wOff, wLayer, wPy, cOff, cLayer, cPy;
        for (int r = 0; r < args.runs; ++r) {
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
    if (!targetsSummary) return 0;
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

// A port benchmark from its start: passive OpenMP waits (before any thread starts), the runtime's
// threads, its reference script (bench/reference/<scriptName>), the arguments and the component.
struct PortBench {
    int threads = 0;
    std::string script;
    PortBenchArgs args;
    PortBenchModel model;

    // false (main returns 2) when the arguments name no folder: the usage is printed. With
    // `load`, the component is read here; a benchmark that first makes its folder calls load().
    bool start(int argc, char** argv, const char* program, const char* scriptName, int defaultRuns,
               bool load = true, const char* defaultDir = nullptr) {
        ensurePassiveOmpWait(argc, argv);
        threads = configureRuntime();
        script = referenceScript(scriptName);
        if (!parsePortBenchArgs(argc, argv, program, script, defaultRuns, args, defaultDir))
            return false;
        if (load) this->load();
        return true;
    }
    void load() { model = loadPortBenchModel(args); }
    // "H heads x D, L layers" of a diffusers transformer's config.
    std::string ditShape() const {
        const auto& c = model.folder.config;
        return std::to_string(c.value("num_attention_heads", 0)) + " heads x " +
               std::to_string(c.value("attention_head_dim", 0)) + ", " +
               std::to_string(c.value("num_layers", 0)) + " layers";
    }
    // "batch B x T tokens" of a text encoder's in.input_ids [B, T], " with a mask" added when the
    // inputs hold in.attention_mask.
    std::string tokenBatch() const {
        const auto& ids = model.in.at("in.input_ids");
        return "batch " + std::to_string(ids.size(0)) + " x " + std::to_string(ids.size(1)) +
               " tokens" + (model.in.count("in.attention_mask") ? " with a mask" : "");
    }
    // The line on what is timed: "<what> DIR: <details>, N threads, median of R runs", `details`
    // a printf format and its values.
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    void
    describe(const char* what, const char* details, ...) const {
        std::printf("%s %s: ", what, args.dir.c_str());
        va_list values;
        va_start(values, details);
        std::vprintf(details, values);
        va_end(values);
        std::printf(", %d threads, median of %d runs\n", threads, args.runs);
    }
    // runPortBench on this benchmark's component.
    int run(const std::string& outputKey, const char* name, bool emulatedFp16 = false,
            bool targetsSummary = true) const {
        return runPortBench(args, model, script, outputKey, name, threads, emulatedFp16,
                            targetsSummary);
    }
};

}  // namespace hs::bench
