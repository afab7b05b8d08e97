#include "diagnosis/device_info.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace hs {

DeviceInfo DeviceInfo::cpu(std::string name, Execution bf16) {
    DeviceInfo d;
    d.kind = Kind::CPU;
    d.name = std::move(name);
    d.cpuBf16 = bf16;
    return d;
}

DeviceInfo DeviceInfo::cuda(std::string name, int major, int minor, double memoryGB) {
    DeviceInfo d;
    d.kind = Kind::CUDA;
    d.name = std::move(name);
    d.major = major;
    d.minor = minor;
    d.memoryGB = memoryGB;
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
    if (f == Format::TF32)
        return isCuda() && atLeast(8, 0) ? Execution::Native : Execution::Emulated;
    if (f == Format::FP16 && !isCuda()) return Execution::Emulated;
    if (f == Format::BF16 && !bf16Native()) return Execution::Emulated;
    return Execution::Native;
}

std::string DeviceInfo::capabilityText() const {
    return isCuda() ? std::to_string(major) + "." + std::to_string(minor) : std::string();
}

std::string DeviceInfo::memoryText() const {
    if (!(memoryGB > 0)) return "";
    std::ostringstream s;
    s.precision(memoryGB < 100 ? 3 : 4);
    s << memoryGB << " GB";
    return s.str();
}

std::string DeviceInfo::describe() const {
    if (!isCuda()) return name.empty() ? "CPU" : "CPU " + name;
    std::string d = "GPU " + (name.empty() ? std::string() : name + " ") + "(compute capability " +
                    capabilityText() + ")";
    if (memoryGB > 0) d += " with " + memoryText();
    return d;
}

std::string DeviceInfo::shortName() const {
    if (target && isCuda())
        return name.empty() ? "a compute capability " + capabilityText() + " GPU" : "the " + name;
    return isCuda() ? "this GPU (compute capability " + capabilityText() + ")" : "this CPU";
}

namespace {

struct KnownGpuRow {
    const char* key;
    const char* name;
    int major, minor;
    double memoryGB;  // 0: a series whose cards differ
};

// Cards people run half precision on, by the compute capability and memory NVIDIA lists for
// them. Two sizes of one card: the plain key is the smaller.
constexpr KnownGpuRow kKnownGpus[] = {{"p100", "Tesla P100", 6, 0, 12},
                                      {"p100-16", "Tesla P100", 6, 0, 16},
                                      {"v100", "Tesla V100", 7, 0, 16},
                                      {"v100-32", "Tesla V100", 7, 0, 32},
                                      {"t4", "Tesla T4", 7, 5, 16},
                                      {"rtx2080ti", "GeForce RTX 2080 Ti", 7, 5, 11},
                                      {"rtx20", "GeForce RTX 20 series", 7, 5, 0},
                                      {"gtx16", "GeForce GTX 16 series", 7, 5, 0},
                                      {"a100", "A100", 8, 0, 40},
                                      {"a100-80", "A100", 8, 0, 80},
                                      {"rtx3060", "GeForce RTX 3060", 8, 6, 12},
                                      {"rtx3090", "GeForce RTX 3090", 8, 6, 24},
                                      {"rtx30", "GeForce RTX 30 series", 8, 6, 0},
                                      {"a10", "A10", 8, 6, 24},
                                      {"l4", "L4", 8, 9, 24},
                                      {"rtx4090", "GeForce RTX 4090", 8, 9, 24},
                                      {"rtx40", "GeForce RTX 40 series", 8, 9, 0},
                                      {"h100", "H100", 9, 0, 80}};

// "7.5" -> (7, 5), "12.0" -> (12, 0); false unless MAJOR.MINOR with a one- or two-digit major
// and a one-digit minor.
bool parseCapability(const std::string& s, int& major, int& minor) {
    const auto dot = s.find('.');
    if (dot == std::string::npos || dot == 0 || dot > 2 || s.size() != dot + 2) return false;
    for (size_t i = 0; i < s.size(); ++i)
        if (i != dot && !std::isdigit((unsigned char)s[i])) return false;
    major = std::stoi(s.substr(0, dot));
    minor = s[dot + 1] - '0';
    return true;
}

std::string knownKeys() {
    std::string names;
    for (const auto& g : kKnownGpus) names += std::string(names.empty() ? "" : ", ") + g.key;
    return names;
}

DeviceInfo fromRow(const KnownGpuRow& g) {
    DeviceInfo d = DeviceInfo::cuda(g.name, g.major, g.minor, g.memoryGB);
    d.target = true;
    return d;
}

}  // namespace

DeviceInfo targetGpu(const std::string& spec) {
    std::string lower = spec;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    for (const auto& g : kKnownGpus)
        if (lower == g.key) return fromRow(g);
    int major = 0, minor = 0;
    const auto eq = spec.rfind('=');
    const std::string cap = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (parseCapability(cap, major, minor) && major >= 3) {
        DeviceInfo d =
            DeviceInfo::cuda(eq == std::string::npos ? "" : spec.substr(0, eq), major, minor);
        d.target = true;
        return d;
    }
    throw std::invalid_argument("unknown GPU '" + spec + "': give one of " + knownKeys() +
                                ", a compute capability such as 7.5, or NAME=7.5");
}

DeviceInfo targetGpuByHand(const std::string& capability, double memoryGB,
                           const std::string& name) {
    int major = 0, minor = 0;
    if (!parseCapability(capability, major, minor) || major < 3)
        throw std::invalid_argument("compute capability '" + capability +
                                    "': give MAJOR.MINOR from 3.0 up, such as 7.5 or 8.6");
    if (!std::isfinite(memoryGB) || memoryGB < 0 || memoryGB > 1024)
        throw std::invalid_argument("memory " + std::to_string(memoryGB) +
                                    " GB: give a size in GB above 0 and at most 1024, such as 16");
    DeviceInfo d = DeviceInfo::cuda(name, major, minor, memoryGB);
    d.target = true;
    return d;
}

std::vector<KnownGpu> knownGpus() {
    std::vector<KnownGpu> out;
    for (const auto& g : kKnownGpus) {
        const DeviceInfo d = fromRow(g);
        KnownGpu k;
        k.key = g.key;
        k.name = g.name;
        k.major = g.major;
        k.minor = g.minor;
        k.memoryGB = g.memoryGB;
        k.label = std::string(g.name) + " (" + d.capabilityText() +
                  (g.memoryGB > 0 ? ", " + d.memoryText() : std::string()) + ")";
        out.push_back(std::move(k));
    }
    return out;
}

}  // namespace hs
