#include "runtime/devices.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/cuda.h>
#include <torch/version.h>
#ifdef HALFSCOPE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#endif

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "numerics/cpu_features.h"

namespace hs {

std::string CudaDeviceInfo::capabilityNote() const {
    std::ostringstream s;
    s << "compute capability " << major << "." << minor << ": ";
    if (nativeBf16())
        s << "native bf16 and fp16";
    else if (fastFp16())
        s << "fast fp16, no native bf16; bf16 runs emulated and slowly";
    else
        s << "no fp16 tensor cores and no native bf16";
    return s.str();
}

CpuInfo cpuInfo() {
    CpuInfo c;
    c.cores = int(std::thread::hardware_concurrency());
#ifdef _WIN32
    // No /proc/cpuinfo: CPUID and the OS's feature flags (numerics/cpu_features.h).
    c.model = cpuBrandString();
    c.avx2 = cpuSupports(CpuFeature::Avx2);
    c.avx512f = cpuSupports(CpuFeature::Avx512f);
    c.avx512bf16 = cpuSupports(CpuFeature::Avx512Bf16);
    c.amxBf16 = cpuSupports(CpuFeature::AmxBf16);
    c.f16c = cpuSupports(CpuFeature::F16c);
    return c;
#else
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    std::set<std::string> flags;
    while (std::getline(in, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        std::string val = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        if (key == "model name" && c.model.empty()) c.model = val;
        if ((key == "flags" || key == "Features") && flags.empty()) {
            std::istringstream fs(val);
            for (std::string f; fs >> f;) flags.insert(f);
        }
    }
    c.avx2 = flags.count("avx2");
    c.avx512f = flags.count("avx512f");
    c.avx512bf16 = flags.count("avx512_bf16");
    c.amxBf16 = flags.count("amx_bf16");
    c.f16c = flags.count("f16c");
    c.armBf16 = flags.count("bf16");
    return c;
#endif
}

std::string cpuFeatureText(const CpuInfo& c) {
    std::vector<std::string> f;
    if (c.avx2) f.push_back("avx2");
    f.push_back(c.avx512f ? "avx512f" : "no avx512");
    if (c.avx512bf16) f.push_back("avx512_bf16");
    if (c.amxBf16) f.push_back("amx_bf16");
    if (c.armBf16) f.push_back("bf16");
    if (!c.avx512bf16 && !c.amxBf16 && !c.armBf16) f.push_back("no bf16 instructions");
    std::string s;
    for (const auto& x : f) s += (s.empty() ? "" : ", ") + x;
    return s;
}

std::vector<CudaDeviceInfo> cudaDevices() {
    std::vector<CudaDeviceInfo> out;
    if (!torch::cuda::is_available()) return out;
    const int n = int(torch::cuda::device_count());
    for (int i = 0; i < n; ++i) {
        CudaDeviceInfo d;
        d.index = i;
#ifdef HALFSCOPE_WITH_CUDA
        const auto* p = at::cuda::getDeviceProperties(i);
        d.name = p->name;
        d.major = p->major;
        d.minor = p->minor;
        d.memoryGiB = double(p->totalGlobalMem) / double(1ull << 30);
        try {
            if (const auto m = cudaMemory(i))
                d.freeMemoryGiB = double(m->freeBytes) / double(1ull << 30);
        } catch (const std::exception&) {
            // Unknown (negative): the list of devices is still worth showing.
        }
#else
        d.name = "CUDA device " + std::to_string(i);
#endif
        out.push_back(d);
    }
    return out;
}

std::optional<CudaMemory> cudaMemory(int device) {
    if (!torch::cuda::is_available()) return std::nullopt;
    const int n = int(torch::cuda::device_count());
    if (device < 0 || device >= n)
        throw std::invalid_argument("no CUDA device " + std::to_string(device) +
                                    " (this machine has " + std::to_string(n) + ")");
#ifdef HALFSCOPE_WITH_CUDA
    // cudaMemGetInfo answers for the current device: switch to it and back.
    const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(device));
    size_t freeBytes = 0, totalBytes = 0;
    const cudaError_t err = cudaMemGetInfo(&freeBytes, &totalBytes);
    if (err != cudaSuccess) {
        cudaGetLastError();  // clear it, so LibTorch's next check does not report it as its own
        throw std::runtime_error("cannot read the free memory of cuda:" + std::to_string(device) +
                                 ": " + cudaGetErrorString(err));
    }
    return CudaMemory{freeBytes, totalBytes};
#else
    return std::nullopt;
#endif
}

EnvironmentInfo environmentInfo() {
    EnvironmentInfo e;
    e.halfscopeVersion = HALFSCOPE_VERSION;
    e.torchVersion = TORCH_VERSION;
    e.torchConfig = at::show_config();
    e.parallelInfo = at::get_parallel_info();
    e.threads = at::get_num_threads();
    e.cudaAvailable = torch::cuda::is_available();
    e.cuda = cudaDevices();
    e.cpu = cpuInfo();
    return e;
}

}  // namespace hs
