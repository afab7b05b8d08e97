// Weight conversion in slices along dim 0 (models/common/weight_convert.h): the same bits as the
// one-shot copy, progress between slices, and a cancel inside one ~300 MB tensor that stops it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "io/safetensors.h"
#include "models/common/weight_convert.h"
#include "models/common/weights.h"
#include "base/cancel.h"
#include "base/load_progress.h"
#include "test_util.h"

using namespace hs;
using Clock = std::chrono::steady_clock;

namespace {

// The bits of a tensor (NaN-safe, -0 distinct from 0): integers of its element size.
torch::Tensor bitsOf(const torch::Tensor& t) {
    const auto c = t.contiguous();
    switch (c.element_size()) {
        case 2:
            return c.view(torch::kShort);
        case 4:
            return c.view(torch::kInt);
        default:
            return c.view(torch::kLong);
    }
}

// Values past fp16's range, fp16 subnormals and specials, so rounding and overflow are exercised.
torch::Tensor testValues(c10::IntArrayRef shape, torch::ScalarType type) {
    torch::manual_seed(7);
    auto x = torch::randn(shape) * torch::exp(torch::randn(shape) * 6);  // |x| from 1e-8 to 1e8
    auto flat = x.view(-1);
    flat[0] = std::numeric_limits<float>::infinity();
    flat[1] = -0.0f;
    flat[2] = std::numeric_limits<float>::quiet_NaN();
    flat[3] = 65520.0f;  // rounds to Inf in fp16
    return x.to(type);
}

struct CaseChunkedConvert {
    const char* name;
    torch::ScalarType stored;
    const char* plan;
    Execution bf16;
    torch::ScalarType result;
};

}  // namespace

// 1031 x 77 rows over 4 KiB slices: slices of 13 or 26 rows, the last one short.
TEST(ChunkedConvert, SlicesGiveTheOneShotBitsOnANonMultipleShape) {
    const CaseChunkedConvert cases[] = {
        {"bf16 -> fp32", torch::kBFloat16, "transformer*=fp32", Execution::Native, torch::kFloat32},
        {"fp16 -> fp32", torch::kHalf, "transformer*=fp32", Execution::Native, torch::kFloat32},
        {"fp32 -> bf16 (native cast)", torch::kFloat32, "transformer*=bf16", Execution::Native,
         torch::kBFloat16},
        {"fp32 -> bf16 (emulated: rounded fp32)", torch::kFloat32, "transformer*=bf16",
         Execution::Emulated, torch::kFloat32},
        {"fp32 -> fp16 (emulated: rounded fp32)", torch::kFloat32, "transformer*=fp16",
         Execution::Emulated, torch::kFloat32},
        {"bf16 -> fp16 (emulated)", torch::kBFloat16, "transformer*=fp16", Execution::Emulated,
         torch::kFloat32},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const auto src = testValues({1031, 77}, c.stored);
        const PrecisionPolicy policy(PrecisionPlan::parse(c.plan), torch::kCPU, c.bf16);
        const auto whole = convertWeightInChunks(src, torch::kFloat32, true, "transformer",
                                                 "blocks.0.proj.weight", policy, 0);
        const auto sliced = convertWeightInChunks(src, torch::kFloat32, true, "transformer",
                                                  "blocks.0.proj.weight", policy, 4096);
        ASSERT_EQ(whole.scalar_type(), c.result);
        ASSERT_EQ(sliced.scalar_type(), c.result);
        ASSERT_EQ(whole.sizes(), sliced.sizes());
        EXPECT_TRUE(sliced.is_contiguous());
        EXPECT_TRUE(torch::equal(bitsOf(whole), bitsOf(sliced)));
        // The slices are not views of the stored tensor.
        EXPECT_NE(sliced.data_ptr(), src.data_ptr());
    }
    // A non-floating destination (an index buffer) and a 3-d tensor sliced along dim 0.
    const auto ints = torch::arange(5 * 999 * 3, torch::kLong).view({5 * 333, 3, 3});
    const PrecisionPolicy fp32(PrecisionPlan(), torch::kCPU);
    const auto a = convertWeightInChunks(ints, torch::kInt, false, "vae", "idx", fp32, 0);
    const auto b = convertWeightInChunks(ints, torch::kInt, false, "vae", "idx", fp32, 1000);
    EXPECT_EQ(b.scalar_type(), torch::kInt);
    EXPECT_TRUE(torch::equal(a, b));
    // What a load uses (convertWeight) is the sliced path with the same bits.
    const auto big = testValues({20005, 2048}, torch::kBFloat16);  // 78 MiB: 3 slices
    const auto viaLoad = convertWeight(big, torch::kFloat32, true, "transformer", "w",
                                       PrecisionPolicy(PrecisionPlan::parse("transformer*=fp16"),
                                                       torch::kCPU, Execution::Emulated));
    const auto oneShot =
        convertWeightInChunks(big, torch::kFloat32, true, "transformer", "w",
                              PrecisionPolicy(PrecisionPlan::parse("transformer*=fp16"),
                                              torch::kCPU, Execution::Emulated),
                              0);
    EXPECT_TRUE(torch::equal(bitsOf(viaLoad), bitsOf(oneShot)));
}

// A 128 MiB tensor reports its progress several times before it is converted, each time with
// more bytes, never past the total.
TEST(ChunkedConvert, ProgressIsReportedBetweenSlicesOfOneTensor) {
    const auto src = torch::ones({16384, 4096}, torch::kBFloat16);  // 128 MiB
    const uint64_t bytes = uint64_t(src.numel()) * 2;
    std::vector<uint64_t> seen;
    const LoadProgressScope scope([&](const LoadProgress& p) { seen.push_back(p.bytesDone); }, 0.0);
    ComponentLoadReport report("text_encoder_2", {});
    report.start(bytes);
    const auto v = convertWeight(src, torch::kFloat32, true, "text_encoder_2", "shared.weight",
                                 PrecisionPolicy(PrecisionPlan(), torch::kCPU));
    report.finish();
    EXPECT_EQ(v.scalar_type(), torch::kFloat32);
    int inside = 0;
    for (size_t i = 0; i < seen.size(); ++i) {
        if (i) EXPECT_GE(seen[i], seen[i - 1]);
        EXPECT_LE(seen[i], bytes);
        inside += seen[i] > 0 && seen[i] < bytes;
    }
    EXPECT_GE(inside, 3) << "128 MiB in 32 MiB slices: three reports inside the tensor";
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), bytes);
}

// One 300 MiB bf16 tensor in a file (a T5-XXL embedding is 32128 x 4096): a cancel set from
// another thread while it is converted (once its first slice is reported) stops the conversion
// within a second, before the end of the tensor. The one-shot copy would finish the tensor and
// return it.
TEST(ChunkedConvert, CancelInsideOneLargeTensorStopsWithinASecond) {
    const std::string dir = test::tempDir("chunked-convert");
    const auto space = std::filesystem::space(dir);
    if (space.available < (uint64_t(1) << 30)) GTEST_SKIP() << "less than 1 GiB free";
    const std::string path = dir + "/embedding.safetensors";
    const int64_t rows = 38400, cols = 4096;  // 300 MiB of bf16
    writeSafetensors(path, {{"shared.weight", torch::ones({rows, cols}, torch::kBFloat16)}});
    const uint64_t bytes = uint64_t(rows * cols) * 2;

    // The conversion runs on a loader thread, as in the studio's worker; this thread is the
    // Stop button: it sets the flag once the loader reports bytes of the tensor done.
    std::atomic<bool> cancel{false};
    std::atomic<uint64_t> reported{0};
    Clock::time_point thrownAt{};
    std::string outcome;
    std::thread loader([&] {
        TensorSet set = TensorSet::open(path);
        const auto stored = set.tensor("shared.weight");
        const CancelScope cancelScope(&cancel);
        const LoadProgressScope progress([&](const LoadProgress& p) { reported = p.bytesDone; },
                                         0.0);
        ComponentLoadReport report("text_encoder_2", {path});
        report.start(bytes);
        try {
            convertWeight(stored, torch::kFloat32, true, "text_encoder_2", "shared.weight",
                          PrecisionPolicy(PrecisionPlan(), torch::kCPU));
            outcome = "converted";
        } catch (const Cancelled&) {
            thrownAt = Clock::now();
            outcome = "cancelled";
        }
    });
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (reported.load() == 0 && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    const uint64_t doneAtCancel = reported.load();
    const auto cancelledAt = Clock::now();
    cancel = true;
    loader.join();
    std::filesystem::remove_all(dir);
    ASSERT_EQ(outcome, "cancelled");
    EXPECT_GT(doneAtCancel, 0u);
    EXPECT_LT(doneAtCancel, bytes) << "the cancel came inside the tensor";
    const double seconds = std::chrono::duration<double>(thrownAt - cancelledAt).count();
    EXPECT_LT(seconds, 1.0);
    std::printf("cancel at %.0f of %.0f MiB, stopped %.3f s later\n", doneAtCancel / 1048576.0,
                bytes / 1048576.0, seconds);
}
