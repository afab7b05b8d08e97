#pragma once
// A cap on what a run may take of a GPU's memory (--gpu-memory GB, --target t4 on a larger GPU,
// the studio's device choice): LibTorch's CUDA caching allocator is told the fraction of the
// device it may hold, so a run on an H200 shows whether the model fits a 16 GB card. And the
// message for a run stopped by an out-of-memory error, with the numbers and the ways out.
// GB here are GiB (2^30 bytes), the unit of `halfscope-cli info`'s memory_gib and nvidia-smi.
#include <exception>
#include <optional>
#include <string>

namespace hs {

struct GpuMemoryCap {
    int device = 0;       // CUDA device index
    double capGiB = 0;    // what the caching allocator may hold
    double totalGiB = 0;  // the device's memory
    std::string origin;   // what asked for it: "--gpu-memory 16", "--target t4 (16 GB)"
    double fraction() const { return capGiB / totalGiB; }
    // "GPU memory capped at 16 GB of 139.8 on cuda:0 (--gpu-memory 16)"
    std::string note() const;
};

// Checks a cap of `capGiB` for `device` ("cpu", "cuda", "cuda:N") holding `totalGiB`. Throws
// std::invalid_argument, with a sentence, for a cap that is not a positive number or exceeds the
// device's memory, and for a device that is not CUDA: the CPU's tensors live in the system's
// memory, which no allocator fraction bounds (refused rather than ignored, so nobody reads a CPU
// run as having fitted a GPU's memory).
GpuMemoryCap checkGpuMemoryCap(const std::string& device, double capGiB, double totalGiB,
                               const std::string& origin);

// Reads the device's memory, checks the cap as above and sets it
// (c10::cuda::CUDACachingAllocator::setMemoryFraction). Throws std::invalid_argument also where
// the device does not exist or this build has no CUDA runtime (HALFSCOPE_WITH_CUDA unset). Call
// it before the run allocates on the device: memory the allocator holds already stays held.
GpuMemoryCap capGpuMemory(const std::string& device, double capGiB, const std::string& origin);

// The cap capGpuMemory set on CUDA device `device` in this process, if any.
std::optional<GpuMemoryCap> gpuMemoryCapOf(int device);

// True for LibTorch's c10::OutOfMemoryError and for any error whose message says "out of memory"
// (CUDA errors raised through other paths: cuBLAS and cuDNN workspaces, a CUDA context) or "not
// enough memory" (LibTorch's CPU allocator).
bool isOutOfMemory(const std::exception& e);

struct OutOfMemoryContext {
    std::string device;    // "cuda:0"
    double totalGiB = -1;  // the device's memory, -1 when unknown
    double freeGiB = -1;   // free when the error was caught, -1 when unknown
    std::optional<GpuMemoryCap> cap;
    bool image = false;         // the run makes an image (a smaller one needs less)
    int width = 0, height = 0;  // its size when given; 0 when the model's default
};
// The message for a run stopped by running out of device memory: LibTorch's first line, the
// device's numbers and cap, then the ways out (stream the model, a smaller image, a plan that
// holds fewer bytes, a larger cap).
std::string outOfMemoryMessage(const std::string& error, const OutOfMemoryContext& c);

// The context for `device` now: its memory and free memory where this build can read them, and
// its cap.
OutOfMemoryContext outOfMemoryContextOf(const std::string& device);

}  // namespace hs
