#pragma once
// A plain description of the device a run used, or of the GPU a diagnosis is for, enough to say
// what each format costs there and whether a model's weights fit.
// Rules (this build): on CUDA every format runs natively, but bf16 has hardware support (tensor
// cores) only from compute capability 8.0 (Ampere) on; below that it is emulated and slow. fp16
// is fast (tensor cores) from 7.0 (Volta, Turing) on. On CPU, fp16 is emulated (compute in fp32,
// outputs rounded to fp16), so fp16 saves no time there, and bf16 runs emulated the same way or
// natively (oneDNN), as the CPU's bf16 mode chose. Memory sizes are in GB as the vendor lists
// them ("16 GB"), read as 10^9 bytes: a weight total in the same unit compares directly, and the
// 7% a GiB holds beyond that stays for the CUDA context. No LibTorch.
#include <string>
#include <vector>

#include "records/format_types.h"

namespace hs {

struct DeviceInfo {
    enum class Kind { CPU, CUDA };
    Kind kind = Kind::CPU;
    std::string name;  // "Tesla T4", "AMD Ryzen 9 7950X" ...
    int major = 0;     // CUDA compute capability, e.g. 7.5; 0.0 for the CPU
    int minor = 0;
    Execution cpuBf16 = Execution::Emulated;  // CPU only: how bf16 ran there
    double memoryGB = 0;                      // device memory, GB (10^9 bytes); 0 = unknown
    // Named by the user as the GPU the model will run on (--target), not the device that ran:
    // sentences say "the Tesla T4", not "this GPU".
    bool target = false;

    static DeviceInfo cpu(std::string name = "", Execution bf16 = Execution::Emulated);
    static DeviceInfo cuda(std::string name, int major, int minor, double memoryGB = 0);

    bool isCuda() const { return kind == Kind::CUDA; }
    bool atLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
    bool bf16Native() const;  // CUDA >= 8.0, or a CPU that ran bf16 natively
    // bf16 costs no more time than the device's fastest format: CUDA >= 8.0, or any CPU
    // (emulated bf16 runs at fp32's speed there, and fp16 is emulated too).
    bool bf16Cheap() const;
    bool fp16Fast() const;  // CUDA >= 7.0
    // How `f` executes here: CPU fp16 is emulated, CPU bf16 as cpuBf16 says; CUDA bf16 below 8.0
    // is treated as emulated.
    Execution executionOf(Format f) const;
    std::string capabilityText() const;  // "7.5" (empty for the CPU)
    std::string memoryText() const;      // "16 GB", "12.5 GB" (empty when unknown)
    // "GPU Tesla T4 (compute capability 7.5) with 16 GB", "CPU AMD ..."
    std::string describe() const;
    // "this GPU (compute capability 7.5)" / "this CPU"; a target: "the Tesla T4", "a compute
    // capability 7.5 GPU" when it has no name.
    std::string shortName() const;
};

// A GPU to advise for, other than the one a run used (a diagnosis made on the CPU for the T4 the
// model will run on): a known name (knownGpus(); any case), a compute capability "7.5", or
// "NAME=7.5". Marked as a target. Throws std::invalid_argument naming the accepted forms.
DeviceInfo targetGpu(const std::string& spec);

// A GPU given by hand: compute capability "X.Y" (3.0 to 99.9) and memory in GB (0 = unknown,
// else up to 1024), named `name` (may be empty). Throws std::invalid_argument naming the
// accepted forms.
DeviceInfo targetGpuByHand(const std::string& capability, double memoryGB,
                           const std::string& name = "");

// The GPUs targetGpu() knows, for help texts and choice lists. Where a card comes in two sizes
// the plain key is the smaller ("v100" 16 GB, "v100-32" 32 GB); series keys ("rtx20") have no
// memory size (0).
struct KnownGpu {
    std::string key;    // "t4"
    std::string name;   // "Tesla T4"
    std::string label;  // "Tesla T4 (7.5, 16 GB)"
    int major = 0, minor = 0;
    double memoryGB = 0;
};
std::vector<KnownGpu> knownGpus();

}  // namespace hs
