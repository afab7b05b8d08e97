// halfscope-cli info: what this machine can run, and how each format executes here.
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "numerics/format.h"
#include "runtime/devices.h"

namespace hs::cli {
namespace {

const char* kBf16Note =
    "bf16 is native only at compute capability >= 8.0 (Ampere and later). "
    "torch.cuda.is_bf16_supported()-style checks also report True on a T4 (7.5) because bf16 "
    "is emulated there: results are correct but slow.";

// The part of at::show_config() a user needs: BLAS, oneDNN and OpenMP lines.
std::vector<std::string> buildHighlights(const std::string& config) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < config.size()) {
        size_t end = config.find('\n', start);
        if (end == std::string::npos) end = config.size();
        std::string line = config.substr(start, end - start);
        for (const char* key :
             {"BLAS", "LAPACK", "MKL", "oneDNN", "OpenMP", "CPU capability", "CUDA", "CuDNN"}) {
            if (line.find(key) != std::string::npos) {
                auto b = line.find_first_not_of(" -");
                out.push_back(b == std::string::npos ? line : line.substr(b));
                break;
            }
        }
        start = end + 1;
    }
    return out;
}

// OMP_WAIT_POLICY as this process started with it (libgomp read it then); "default" when unset.
std::string ompWaitPolicy() {
    const char* p = std::getenv("OMP_WAIT_POLICY");
    return p ? p : "default";
}

nlohmann::json executionTable(const torch::Device& d) {
    nlohmann::json t;
    for (Format f : kFormats)
        t[formatName(f)] = executionName(executionFor(f, d));
    return t;
}

int runInfo(const Args& args) {
    args.allowOnly({"json"});
    const auto e = environmentInfo();
    const auto highlights = buildHighlights(e.torchConfig);
    if (args.has("json")) {
        nlohmann::json j;
        j["halfscope_version"] = e.halfscopeVersion;
        j["torch_version"] = e.torchVersion;
        j["torch_build"] = highlights;
        j["threads"] = e.threads;
        j["omp_wait_policy"] = ompWaitPolicy();
        j["cpu"] = {{"model", e.cpu.model},
                    {"cores", e.cpu.cores},
                    {"avx2", e.cpu.avx2},
                    {"avx512f", e.cpu.avx512f},
                    {"avx512_bf16", e.cpu.avx512bf16},
                    {"amx_bf16", e.cpu.amxBf16},
                    {"f16c", e.cpu.f16c},
                    {"bf16_instructions", cpuHasBf16Instructions()},
                    {"bf16_mode", cpuBf16Name(cpuBf16Mode())},
                    {"bf16_note", cpuBf16Description()},
                    {"execution", executionTable(torch::Device(torch::kCPU))}};
        j["cuda_available"] = e.cudaAvailable;
        j["cuda_devices"] = nlohmann::json::array();
        for (const auto& d : e.cuda) {
            j["cuda_devices"].push_back(
                {{"index", d.index},
                 {"name", d.name},
                 {"compute_capability", std::to_string(d.major) + "." + std::to_string(d.minor)},
                 {"memory_gib", d.memoryGiB},
                 // null when this build cannot ask the CUDA runtime (docs/gpu.md)
                 {"free_memory_gib",
                  d.freeMemoryGiB >= 0 ? nlohmann::json(d.freeMemoryGiB) : nlohmann::json()},
                 {"native_bf16", d.nativeBf16()},
                 {"fast_fp16", d.fastFp16()},
                 {"note", d.capabilityNote()},
                 {"execution", executionTable(torch::Device(torch::kCUDA, d.index))}});
        }
        j["bf16_note"] = kBf16Note;
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return kExitOk;
    }
    std::cout << "Halfscope " << e.halfscopeVersion << "\n"
              << "LibTorch  " << e.torchVersion << "\n";
    for (const auto& h : highlights) std::cout << "  " << h << "\n";
    std::cout << "Threads   " << e.threads << " intra-op (override with --threads N or "
              << "HALFSCOPE_THREADS), OpenMP waits " << ompWaitPolicy() << "\n\n"
              << "CPU       " << e.cpu.model << " (" << e.cpu.cores << " logical cores)\n"
              << "          avx2 " << (e.cpu.avx2 ? "yes" : "no") << ", avx512f "
              << (e.cpu.avx512f ? "yes" : "no") << ", avx512_bf16 "
              << (e.cpu.avx512bf16 ? "yes" : "no") << ", amx_bf16 "
              << (e.cpu.amxBf16 ? "yes" : "no") << "\n"
              << "          fp32 native; " << cpuBf16Description()
              << " (--cpu-bf16 emulated|native|auto);\n"
              << "          fp16 emulated (fp32 compute, every op output rounded to fp16)\n\n";
    if (e.cuda.empty()) {
        std::cout << "CUDA      " << (e.cudaAvailable ? "available, no devices" : "not available")
                  << " in this LibTorch build\n";
    }
    for (const auto& d : e.cuda) {
        std::cout << "cuda:" << d.index << "    " << d.name << "\n          " << d.capabilityNote()
                  << "\n";
        if (d.memoryGiB > 0) {
            std::ostringstream m;
            m << std::fixed << std::setprecision(1) << d.memoryGiB << " GiB memory, ";
            if (d.freeMemoryGiB >= 0)
                m << d.freeMemoryGiB << " GiB free now";
            else
                m << "free memory unknown";
            std::cout << "          " << m.str() << "\n";
        }
    }
    std::cout << "\nNote: " << kBf16Note << "\n";
    return kExitOk;
}

const Registrar kInfoCommand(
    {"info",
     "LibTorch build, threads, CPU features and devices",
     "usage: halfscope-cli info [--json] [--threads N] [--cpu-bf16 MODE]\n\n"
     "Prints the LibTorch version and build (BLAS, oneDNN, OpenMP), the intra-op\n"
     "thread count, CPU features (avx512_bf16, amx), how each format runs on the\n"
     "CPU (bf16 emulated or native, see --cpu-bf16) and, for every CUDA device,\n"
     "its compute capability, whether bf16 and fp16 run natively, its memory and\n"
     "the memory free now (before any model is loaded).\n",
     runInfo,
     {}});

}  // namespace
}  // namespace hs::cli
