#include "runtime/device_sync.h"

#include <torch/cuda.h>

namespace hs {

void synchronizeDevice(const c10::Device& device) {
    // torch::cuda::synchronize takes -1 for the current device ("cuda" without an index).
    if (device.is_cuda()) torch::cuda::synchronize(device.has_index() ? device.index() : -1);
}

}  // namespace hs
