#pragma once
// A plain description of the device a run used, enough to say what each format costs there.
// Rules (this build): on CUDA every format runs natively, but bf16 has hardware support (tensor
// cores) only from compute capability 8.0 (Ampere) on; below that it is emulated and slow. fp16
// is fast (tensor cores) from 7.0 (Volta, Turing) on. On CPU, fp16 is emulated (compute in fp32,
// outputs rounded to fp16), so fp16 saves no time there, and bf16 runs emulated the same way or
// natively (oneDNN), as the CPU's bf16 mode chose. No LibTorch.
#include <string>

#include "records/format_types.h"

namespace hs {

struct DeviceInfo {
    enum class Kind { CPU, CUDA };
    Kind kind = Kind::CPU;
    std::string name;  // "Tesla T4", "AMD Ryzen 9 7950X" ...
    int major = 0;     // CUDA compute capability, e.g. 7.5; 0.0 for the CPU
    int minor = 0;
    Execution cpuBf16 = Execution::Emulated;  // CPU only: how bf16 ran there

    static DeviceInfo cpu(std::string name = "", Execution bf16 = Execution::Emulated);
    static DeviceInfo cuda(std::string name, int major, int minor);

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
    std::string describe() const;        // "GPU Tesla T4 (compute capability 7.5)", "CPU AMD ..."
    std::string shortName() const;       // "this GPU (compute capability 7.5)" / "this CPU"
};

// A GPU to advise for, other than the one a run used (a diagnosis made on the CPU for the T4 the
// model will run on): a known name ("t4", "v100", "p100", "rtx20", "gtx16", "a100", "rtx30",
// "a10", "l4", "rtx40", "h100"; any case), a compute capability "7.5", or "NAME=7.5". Throws
// std::invalid_argument naming the accepted forms.
DeviceInfo targetGpu(const std::string& spec);

}  // namespace hs
