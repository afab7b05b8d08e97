#include "runtime/gpu_memory.h"

#include <c10/core/Device.h>
#include <c10/util/Exception.h>
#ifdef HALFSCOPE_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>

#include "runtime/devices.h"

namespace hs {

namespace {

constexpr double kGiB = double(1ull << 30);

// "16", "139.8": whole numbers without a decimal, others to one decimal.
std::string gbText(double gib) {
    char buf[32];
    if (std::fabs(gib - std::round(gib)) < 0.05)
        std::snprintf(buf, sizeof buf, "%.0f", gib);
    else
        std::snprintf(buf, sizeof buf, "%.1f", gib);
    return buf;
}

// The CUDA device index of "cuda" / "cuda:N"; nullopt for any other device.
std::optional<int> cudaIndexOf(const std::string& device) {
    c10::Device d(c10::kCPU);
    try {
        d = c10::Device(device);
    } catch (const c10::Error&) {
        throw std::invalid_argument("'" + device + "' is not a device (cpu or cuda:N)");
    }
    if (!d.is_cuda()) return std::nullopt;
    return d.has_index() ? int(d.index()) : 0;
}

std::mutex g_capsMutex;
std::map<int, GpuMemoryCap>& caps() {
    static std::map<int, GpuMemoryCap> m;
    return m;
}

}  // namespace

std::string GpuMemoryCap::note() const {
    return "GPU memory capped at " + gbText(capGiB) + " GB of " + gbText(totalGiB) +
           " on cuda:" + std::to_string(device) + (origin.empty() ? "" : " (" + origin + ")");
}

GpuMemoryCap checkGpuMemoryCap(const std::string& device, double capGiB, double totalGiB,
                               const std::string& origin) {
    const auto index = cudaIndexOf(device);
    if (!index)
        throw std::invalid_argument(
            "a GPU memory cap applies to a CUDA device (--device cuda:N); '" + device +
            "' runs in the system's memory, which it cannot bound");
    if (!(capGiB > 0) || !std::isfinite(capGiB))
        throw std::invalid_argument("the GPU memory cap must be a positive number of GB, got " +
                                    gbText(capGiB));
    if (totalGiB > 0 && capGiB > totalGiB + 1e-9)
        throw std::invalid_argument("a GPU memory cap of " + gbText(capGiB) + " GB exceeds " +
                                    device + "'s " + gbText(totalGiB) + " GB");
    return GpuMemoryCap{*index, capGiB, totalGiB, origin};
}

GpuMemoryCap capGpuMemory(const std::string& device, double capGiB, const std::string& origin) {
    const auto index = cudaIndexOf(device);
    // The checks that need no device first: the CPU and a bad number are refused everywhere.
    if (!index) return checkGpuMemoryCap(device, capGiB, -1, origin);
    checkGpuMemoryCap(device, capGiB, -1, origin);
    const auto memory = cudaMemory(*index);  // throws for an index that is no device
    if (!memory)
        throw std::invalid_argument(
            "cannot cap " + device +
            "'s memory: this build has no CUDA runtime or CUDA is not available");
    GpuMemoryCap cap = checkGpuMemoryCap(device, capGiB, double(memory->totalBytes) / kGiB, origin);
#ifdef HALFSCOPE_WITH_CUDA
    c10::cuda::CUDACachingAllocator::setMemoryFraction(std::min(1.0, cap.fraction()), cap.device);
#endif
    const std::lock_guard<std::mutex> lock(g_capsMutex);
    caps()[cap.device] = cap;
    return cap;
}

std::optional<GpuMemoryCap> gpuMemoryCapOf(int device) {
    const std::lock_guard<std::mutex> lock(g_capsMutex);
    const auto it = caps().find(device);
    if (it == caps().end()) return std::nullopt;
    return it->second;
}

bool isOutOfMemory(const std::exception& e) {
    if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
    const std::string what = e.what();
    return what.find("out of memory") != std::string::npos ||
           what.find("not enough memory") != std::string::npos ||
           what.find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos;
}

std::string outOfMemoryMessage(const std::string& error, const OutOfMemoryContext& c) {
    const std::string first = error.substr(0, error.find('\n'));
    std::string s = "out of memory on " + (c.device.empty() ? std::string("the device") : c.device);
    std::string numbers;
    if (c.totalGiB > 0) numbers += gbText(c.totalGiB) + " GB";
    if (c.cap) numbers += (numbers.empty() ? "" : ", ") + c.cap->note();
    if (c.freeGiB >= 0)
        numbers += (numbers.empty() ? "" : ", ") + gbText(c.freeGiB) + " GB free now";
    if (!numbers.empty()) s += " (" + numbers + ")";
    s += ": " + first + "\nWays out:\n";
    s += "  - stream the large components block by block: HALFSCOPE_MEMORY_LIMIT_MB=<MB the run "
         "may use> makes the load stream what does not fit\n";
    if (c.image)
        s += "  - a smaller image" +
             (c.width > 0 && c.height > 0
                  ? " than " + std::to_string(c.width) + " x " + std::to_string(c.height)
                  : std::string()) +
             " (--width, --height): activations grow with the pixels\n";
    s += "  - another plan: bf16 or fp16 for the large components holds half of fp32's bytes "
         "(e.g. --plan 'transformer=bf16')\n";
    if (c.cap)
        s += "  - a larger --gpu-memory than " + gbText(c.cap->capGiB) +
             " GB, or none (the cap stands for a smaller GPU)\n";
    return s;
}

OutOfMemoryContext outOfMemoryContextOf(const std::string& device) {
    OutOfMemoryContext c;
    c.device = device;
    try {
        const auto index = cudaIndexOf(device);
        if (!index) return c;
        c.cap = gpuMemoryCapOf(*index);
        if (const auto m = cudaMemory(*index)) {
            c.totalGiB = double(m->totalBytes) / kGiB;
            c.freeGiB = double(m->freeBytes) / kGiB;
        }
    } catch (const std::exception&) {
        // The numbers are a help, not the message: leave them unknown.
    }
    return c;
}

}  // namespace hs
