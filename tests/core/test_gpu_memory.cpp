// A GPU's memory imposed on a run and the out-of-memory message (runtime/gpu_memory.h), TF32 off
// after configureRuntime (runtime/runtime.h), and the CLI's --gpu-memory: all checked on the CPU,
// where a cap is refused by name.
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/device_sync.h"
#include "runtime/gpu_memory.h"
#include "runtime/runtime.h"
#include "test_util.h"

namespace hs {
namespace {

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string refusal(const std::string& device, double gib, double total) {
    try {
        checkGpuMemoryCap(device, gib, total, "--gpu-memory");
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(GpuMemoryCap, AFractionOfTheDeviceWithANoteGivingBothSizes) {
    const GpuMemoryCap cap = checkGpuMemoryCap("cuda:1", 16, 139.8, "--gpu-memory 16");
    EXPECT_EQ(cap.device, 1);
    EXPECT_NEAR(cap.fraction(), 16 / 139.8, 1e-12);
    EXPECT_EQ(cap.note(), "GPU memory capped at 16 GB of 139.8 on cuda:1 (--gpu-memory 16)");
    EXPECT_EQ(checkGpuMemoryCap("cuda", 139.8, 139.8, "").device, 0);  // all of it is allowed
}

TEST(GpuMemoryCap, TheCpuANonPositiveNumberAndMoreThanTheDeviceAreRefused) {
    EXPECT_TRUE(has(refusal("cpu", 16, -1), "applies to a CUDA device")) << refusal("cpu", 16, -1);
    EXPECT_TRUE(has(refusal("cuda:0", 0, 80), "positive number"));
    EXPECT_TRUE(has(refusal("cuda:0", -2, 80), "positive number"));
    EXPECT_TRUE(has(refusal("cuda:0", 81, 80), "exceeds cuda:0's 80 GB"))
        << refusal("cuda:0", 81, 80);
    EXPECT_TRUE(has(refusal("tpu", 1, 1), "not a device"));
    // Applying one: refused on the CPU, and where no CUDA device can be read (this build).
    EXPECT_THROW(capGpuMemory("cpu", 16, ""), std::invalid_argument);
    if (!torch::cuda::is_available()) {
        EXPECT_THROW(capGpuMemory("cuda:0", 16, ""), std::invalid_argument);
        EXPECT_FALSE(gpuMemoryCapOf(0).has_value());
    }
}

TEST(OutOfMemory, LibTorchsErrorAndMessagesThatSaySoAreRecognised) {
    try {
        C10_THROW_ERROR(OutOfMemoryError, "CUDA out of memory. Tried to allocate 2.00 GiB");
    } catch (const std::exception& e) {
        EXPECT_TRUE(isOutOfMemory(e));
    }
    EXPECT_TRUE(isOutOfMemory(std::runtime_error("CUDA error: out of memory")));
    EXPECT_TRUE(isOutOfMemory(std::runtime_error("DefaultCPUAllocator: not enough memory: you")));
    EXPECT_FALSE(isOutOfMemory(std::runtime_error("no such file: a.safetensors")));
}

TEST(OutOfMemory, TheMessageGivesTheNumbersAndTheWaysOut) {
    OutOfMemoryContext c;
    c.device = "cuda:0";
    c.totalGiB = 139.8;
    c.freeGiB = 0.4;
    c.cap = checkGpuMemoryCap("cuda:0", 16, 139.8, "--target t4: 16 GB");
    c.image = true;
    c.width = 1024;
    c.height = 768;
    const std::string m = outOfMemoryMessage(
        "CUDA out of memory. Tried to allocate 2.00 GiB\nException raised from malloc", c);
    EXPECT_TRUE(has(m,
                    "out of memory on cuda:0 (139.8 GB, GPU memory capped at 16 GB of 139.8 "
                    "on cuda:0 (--target t4: 16 GB), 0.4 GB free now): CUDA out of memory. "
                    "Tried to allocate 2.00 GiB\n"))
        << m;
    EXPECT_FALSE(has(m, "Exception raised from"));  // LibTorch's first line only
    for (const char* way : {"HALFSCOPE_MEMORY_LIMIT_MB", "a smaller image than 1024 x 768",
                            "--plan 'transformer=bf16'", "a larger --gpu-memory than 16 GB"})
        EXPECT_TRUE(has(m, way)) << way << "\n" << m;
    // run-module: no image, no cap, numbers unknown.
    OutOfMemoryContext plain;
    plain.device = "cpu";
    const std::string p = outOfMemoryMessage("DefaultCPUAllocator: not enough memory", plain);
    EXPECT_TRUE(has(p, "out of memory on cpu: DefaultCPUAllocator")) << p;
    EXPECT_FALSE(has(p, "smaller image"));
    EXPECT_FALSE(has(p, "--gpu-memory"));
}

TEST(Runtime, ConfigureRuntimeTurnsTf32OffAndSynchronisingTheCpuDoesNothing) {
    at::globalContext().setAllowTF32CuBLAS(true);
    at::globalContext().setAllowTF32CuDNN(true);
    configureRuntime(at::get_num_threads());
    EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
    EXPECT_FALSE(at::globalContext().allowTF32CuDNN());
    EXPECT_NO_THROW(synchronizeDevice(c10::Device(c10::kCPU)));
}

class CliGpuMemory : public test::TempDirTest {};

TEST_F(CliGpuMemory, RefusedOnTheCpuByNameInEveryCommandThatTakesADevice) {
    const std::vector<std::string> commands = {
        "generate --out " + m_dir + "/a.png", "compare --plan vae=fp32 --plan vae=bf16",
        "bisect --plan transformer=fp16",
        "run-module --model x --inputs y.safetensors --output z.safetensors"};
    for (const std::string& cmd : commands) {
        int status = -1;
        const std::string out = test::runCli(cmd + " --gpu-memory 16", status);
        EXPECT_EQ(status, 2) << cmd << "\n" << out;
        EXPECT_TRUE(has(out, "--gpu-memory: a GPU memory cap applies to a CUDA device"))
            << cmd << "\n"
            << out;
    }
    int status = -1;
    const std::string out =
        test::runCli("generate --gpu-memory lots --out " + m_dir + "/b.png", status);
    EXPECT_EQ(status, 2) << out;
    EXPECT_TRUE(has(out, "--gpu-memory expects a number")) << out;
    EXPECT_TRUE(has(test::runCli("generate --help", status), "--gpu-memory GB"));
}

}  // namespace
}  // namespace hs
