#pragma once
// Timing work on a device. A CUDA device runs the kernels a call queues after the call has
// returned, so a clock read right after it measures the launches, not the work: every timing of
// device work (a run's steps, run-module --repeat, the run estimate) waits for the device first.
#include <c10/core/Device.h>

namespace hs {

// Waits until the work queued on `device` has finished; nothing on the CPU.
void synchronizeDevice(const c10::Device& device);

}  // namespace hs
