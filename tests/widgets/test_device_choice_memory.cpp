// The studio's device choice holds a GPU memory cap as --gpu-memory does (core/runtime/
// gpu_memory.h): a positive number of GB up to the device's memory, and none for the CPU.
#include <gtest/gtest.h>

#include "ctl_device_choice.h"

namespace {

TEST(DeviceChoiceMemory, ACapFitsAGpuAndIsRefusedForTheCpu) {
    const auto h200 = DeviceChoice::cuda(0, "NVIDIA H200", 9, 0, 139.8);
    EXPECT_DOUBLE_EQ(h200.memoryGiB, 139.8);
    EXPECT_DOUBLE_EQ(h200.memoryCapGiB, 0.0);  // none until chosen
    EXPECT_TRUE(h200.memoryCapProblem(16).isEmpty());
    EXPECT_TRUE(h200.memoryCapProblem(139.8).isEmpty());
    EXPECT_TRUE(h200.memoryCapProblem(0).contains("positive number"));
    EXPECT_TRUE(h200.memoryCapProblem(-1).contains("positive number"));
    const QString over = h200.memoryCapProblem(200);
    EXPECT_TRUE(over.contains("holds 139.8 GB")) << over.toStdString();
    EXPECT_TRUE(over.contains("200.0 GB")) << over.toStdString();
    EXPECT_TRUE(DeviceChoice::cpu().memoryCapProblem(16).contains("applies to a GPU"));
    // A GPU whose memory is unknown takes any positive cap (LibTorch checks it when applied).
    EXPECT_TRUE(DeviceChoice::cuda(1, "GPU", 8, 6).memoryCapProblem(500).isEmpty());
}

}  // namespace
