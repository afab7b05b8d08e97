#pragma once
// What the machine can run: LibTorch build, CPU features, CUDA devices and their capabilities.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hs {

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    int major = 0, minor = 0;  // compute capability
    double memoryGiB = 0;
    // Free memory when the list was made (cudaMemGetInfo); negative when unknown (a LibTorch
    // without the CUDA runtime headers). Other processes' allocations count as used.
    double freeMemoryGiB = -1;
    // bf16 tensor cores arrive with Ampere (8.0). torch.cuda.is_bf16_supported() also answers
    // True on a T4 (7.5) because bf16 is emulated there: correct results, far slower.
    bool nativeBf16() const { return major >= 8; }
    bool fastFp16() const { return major >= 7; }  // fp16 tensor cores (Volta and later)
    std::string capabilityNote() const;
};

struct CpuInfo {
    std::string model;
    int cores = 0;
    bool avx2 = false, avx512f = false, avx512bf16 = false, amxBf16 = false, f16c = false;
    bool armBf16 = false;  // "bf16" in an Arm CPU's Features line
};
// "avx2, avx512f, avx512_bf16" / "avx2, no avx512, no bf16 instructions": what a timing needs.
std::string cpuFeatureText(const CpuInfo& c);

struct EnvironmentInfo {
    std::string halfscopeVersion;
    std::string torchVersion;
    std::string torchConfig;   // at::show_config()
    std::string parallelInfo;  // at::get_parallel_info()
    int threads = 0;
    bool cudaAvailable = false;
    std::vector<CudaDeviceInfo> cuda;
    CpuInfo cpu;
};

EnvironmentInfo environmentInfo();
CpuInfo cpuInfo();
std::vector<CudaDeviceInfo> cudaDevices();

// Free and total memory of a CUDA device, in bytes, now (cudaMemGetInfo), so a model's size can be
// checked before it is loaded. The first call on a device creates its CUDA context (a few hundred
// MB of that device's memory, which LibTorch creates anyway on the first tensor there). nullopt
// when this build has no CUDA runtime (HALFSCOPE_WITH_CUDA unset) or CUDA is not available;
// std::invalid_argument naming the count for an index that is not a device.
struct CudaMemory {
    std::uint64_t freeBytes = 0, totalBytes = 0;
};
std::optional<CudaMemory> cudaMemory(int device);

}  // namespace hs
