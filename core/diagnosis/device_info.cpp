#include "diagnosis/device_info.h"

namespace hs {

DeviceInfo DeviceInfo::cpu(std::string name, Execution bf16) {
    DeviceInfo d;
    d.kind = Kind::CPU;
    d.name = std::move(name);
    d.cpuBf16 = bf16;
    return d;
}

DeviceInfo DeviceInfo::cuda(std::string name, int major, int minor) {
    DeviceInfo d;
    d.kind = Kind::CUDA;
    d.name = std::move(name);
    d.major = major;
    d.minor = minor;
    return d;
}

bool DeviceInfo::bf16Native() const {
    return isCuda() ? atLeast(8, 0) : cpuBf16 == Execution::Native;
}
bool DeviceInfo::bf16Cheap() const {
    return !isCuda() || atLeast(8, 0);
}
bool DeviceInfo::fp16Fast() const {
    return isCuda() && atLeast(7, 0);
}

Execution DeviceInfo::executionOf(Format f) const {
    if (f == Format::FP16 && !isCuda()) return Execution::Emulated;
    if (f == Format::BF16 && !bf16Native()) return Execution::Emulated;
    return Execution::Native;
}

std::string DeviceInfo::capabilityText() const {
    return isCuda() ? std::to_string(major) + "." + std::to_string(minor) : std::string();
}

std::string DeviceInfo::describe() const {
    if (!isCuda()) return name.empty() ? "CPU" : "CPU " + name;
    return "GPU " + (name.empty() ? std::string("(unnamed)") : name) + " (compute capability " +
           capabilityText() + ")";
}

std::string DeviceInfo::shortName() const {
    return isCuda() ? "this GPU (compute capability " + capabilityText() + ")" : "this CPU";
}

}  // namespace hs
