#include "diagnosis/device_info.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

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

namespace {

struct KnownGpu {
    const char* key;
    const char* name;
    int major, minor;
};

// Cards people run half precision on, by the compute capability NVIDIA lists for them.
constexpr KnownGpu kKnownGpus[] = {{"p100", "Tesla P100", 6, 0},
                                   {"v100", "Tesla V100", 7, 0},
                                   {"t4", "Tesla T4", 7, 5},
                                   {"rtx20", "GeForce RTX 20 series", 7, 5},
                                   {"gtx16", "GeForce GTX 16 series", 7, 5},
                                   {"a100", "A100", 8, 0},
                                   {"rtx30", "GeForce RTX 30 series", 8, 6},
                                   {"a10", "A10", 8, 6},
                                   {"l4", "L4", 8, 9},
                                   {"rtx40", "GeForce RTX 40 series", 8, 9},
                                   {"h100", "H100", 9, 0}};

// "7.5" -> (7, 5); false when `s` is not MAJOR.MINOR with one-digit parts.
bool parseCapability(const std::string& s, int& major, int& minor) {
    if (s.size() != 3 || !std::isdigit((unsigned char)s[0]) || s[1] != '.' ||
        !std::isdigit((unsigned char)s[2]))
        return false;
    major = s[0] - '0';
    minor = s[2] - '0';
    return true;
}

}  // namespace

DeviceInfo targetGpu(const std::string& spec) {
    std::string lower = spec;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    for (const auto& g : kKnownGpus)
        if (lower == g.key) return DeviceInfo::cuda(g.name, g.major, g.minor);
    int major = 0, minor = 0;
    const auto eq = spec.rfind('=');
    const std::string cap = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (parseCapability(cap, major, minor) && major >= 3)
        return DeviceInfo::cuda(eq == std::string::npos ? "" : spec.substr(0, eq), major, minor);
    std::string names;
    for (const auto& g : kKnownGpus) names += std::string(names.empty() ? "" : ", ") + g.key;
    throw std::invalid_argument("unknown GPU '" + spec + "': give one of " + names +
                                ", a compute capability such as 7.5, or NAME=7.5");
}

}  // namespace hs
