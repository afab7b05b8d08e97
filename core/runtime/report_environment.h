#pragma once
// The environment of this process as a report sees it: versions, CPU, threads and the device.
#include <string>

#include "diagnosis/device_info.h"
#include "report/report_types.h"

namespace hs {

// Versions, CPU, threads and the device `deviceId` ("cpu", "cuda:N") of this process.
ReportEnvironment reportEnvironment(const std::string& deviceId);
DeviceInfo deviceInfoFor(const std::string& deviceId);

}  // namespace hs
