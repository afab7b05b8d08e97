// Free device memory before a model is loaded (runtime/devices.h): what a CPU-only LibTorch
// answers, and, on a CUDA build with a GPU, that the numbers are a device's.
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <stdexcept>

#include "runtime/devices.h"

TEST(CudaMemory, UnknownWithoutCudaAndBoundedWithIt) {
    if (!torch::cuda::is_available()) {
        EXPECT_FALSE(hs::cudaMemory(0).has_value());
        for (const auto& d : hs::cudaDevices()) EXPECT_LT(d.freeMemoryGiB, 0);
        return;
    }
#ifdef HALFSCOPE_WITH_CUDA
    const auto m = hs::cudaMemory(0);
    ASSERT_TRUE(m.has_value());
    EXPECT_GT(m->totalBytes, 0u);
    EXPECT_LE(m->freeBytes, m->totalBytes);
    const auto devices = hs::cudaDevices();
    ASSERT_FALSE(devices.empty());
    EXPECT_GE(devices[0].freeMemoryGiB, 0);
    EXPECT_LE(devices[0].freeMemoryGiB, devices[0].memoryGiB + 1e-9);
#endif
}

TEST(CudaMemory, AnIndexThatIsNoDeviceIsRefusedByName) {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device in this LibTorch build";
    try {
        hs::cudaMemory(int(torch::cuda::device_count()));
        FAIL() << "no exception for an index past the last device";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
    }
}
