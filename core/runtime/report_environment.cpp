#include "runtime/report_environment.h"

#include <cstdlib>
#include <fstream>

#include "numerics/format.h"
#include "runtime/devices.h"

namespace hs {

namespace {

std::string osName() {
    std::ifstream f("/etc/os-release");
    for (std::string line; std::getline(f, line);)
        if (line.rfind("PRETTY_NAME=", 0) == 0) {
            std::string v = line.substr(12);
            if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
            return v;
        }
    return "";
}

int cudaIndex(const std::string& deviceId) {
    if (deviceId.rfind("cuda", 0) != 0) return -1;
    const auto colon = deviceId.find(':');
    return colon == std::string::npos ? 0 : std::atoi(deviceId.c_str() + colon + 1);
}

}  // namespace

ReportEnvironment reportEnvironment(const std::string& deviceId) {
    const EnvironmentInfo e = environmentInfo();
    ReportEnvironment r;
    r.libtorchVersion = e.torchVersion;
    r.threads = e.threads;
    r.os = osName();
    r.cpu = e.cpu.model + " (" + cpuFeatureText(e.cpu) + ")";
    r.cpuBf16 = cpuBf16Description();
    r.cpuBf16Message = cpuBf16DescriptionMessage();
    r.device = deviceId;
    const int i = cudaIndex(deviceId);
    for (const auto& d : e.cuda)
        if (d.index == i) {
            r.device += " " + d.name;
            r.computeCapability = std::to_string(d.major) + "." + std::to_string(d.minor);
        }
    return r;
}

DeviceInfo deviceInfoFor(const std::string& deviceId) {
    const int i = cudaIndex(deviceId);
    if (i >= 0)
        for (const auto& d : cudaDevices())
            if (d.index == i) return DeviceInfo::cuda(d.name, d.major, d.minor);
    return DeviceInfo::cpu(cpuInfo().model, cpuBf16Execution());
}

}  // namespace hs
