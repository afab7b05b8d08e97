// Single files whose tensors have sizes no model has. A zero-sized tensor is legal safetensors,
// and converters divide by sizes they read (heads from a bias's columns, a VAE's level widths
// from its first convolution): each real layout the fixtures write, with every tensor in turn
// made zero-sized or one larger along each of its dimensions, converts or is refused with an
// error naming the file; none may end the process (SIGFPE, a failed allocation).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "anima_fixture.h"
#include "flux1_fixture.h"
#include "models/single_file.h"
#include "qwenimage_fixture.h"
#include "sd_fixture.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

struct SweepCount {
    int converted = 0, refused = 0;
};

// Converts `w` once for every tensor and dimension with that size set to 0 and to size + 1.
SweepCount sweepSizesOf(const WeightMap& w, const std::string& name) {
    SweepCount n;
    for (const auto& [key, t] : w) {
        for (int64_t d = 0; d < t.dim(); ++d) {
            for (const int64_t size : {int64_t(0), t.size(d) + 1}) {
                auto sizes = t.sizes().vec();
                sizes[d] = size;
                WeightMap bad = w;
                bad[key] = torch::zeros(sizes, t.options());
                SCOPED_TRACE(key + " dimension " + std::to_string(d) + " of size " +
                             std::to_string(size));
                try {
                    convertSingleFile(bad, name);
                    ++n.converted;
                } catch (const std::exception& e) {
                    ++n.refused;
                    const std::string m = e.what();
                    EXPECT_NE(m.find(name), std::string::npos) << m;
                }
            }
        }
    }
    return n;
}

// Sweeps the file at `path`; every layout must refuse some of its altered copies.
void sweepFile(const std::string& path) {
    SCOPED_TRACE(path);
    const WeightMap w = test::openWeights(path);
    ASSERT_NO_THROW(convertSingleFile(w, fs::path(path).filename().string()));
    const SweepCount n = sweepSizesOf(w, fs::path(path).filename().string());
    int64_t dims = 0;
    for (const auto& kv : w) dims += kv.second.dim();
    EXPECT_EQ(n.converted + n.refused, 2 * dims);
    EXPECT_GT(n.refused, 0);
    std::cout << "[ sweep ] " << path << ": " << w.size() << " tensors, " << 2 * dims
              << " altered copies, " << n.refused << " refused\n";
}

class HostileSingleFile : public ::testing::Test {
protected:
    void SetUp() override { m_dir = test::tempDir("hostile-single"); }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string m_dir;
};

}  // namespace

TEST_F(HostileSingleFile, T5WithZeroHeadsIsRefusedNamingTheBias) {
    WeightMap w = test::openWeights(test::dataPath("golden/t5/model.safetensors"));
    const std::string bias = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight";
    w[bias] = torch::zeros({32, 0});  // [buckets, heads]: no heads, 0 bytes
    const std::string path = test::writeWeights(m_dir, "t5xxl_zero_heads.safetensors", w);
    const std::string m = test::errorOf<WeightError>([&] { readSingleFile(path); });
    EXPECT_NE(m.find("'" + bias + "' has size 0 in dimension 1"), std::string::npos) << m;
    // inspect describes the tensors and says why the layout does not convert (before, the
    // process died of SIGFPE: status 136 through the shell).
    int status = -1;
    const std::string out = test::runCli("inspect '" + path + "'", status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find("does not convert"), std::string::npos) << out;
    EXPECT_NE(out.find(bias), std::string::npos) << out;
}

TEST_F(HostileSingleFile, WanVaeWithAZeroWideFirstConvolutionIsRefusedNamingIt) {
    const auto files = test::writeTinyQwenImage(m_dir + "/qwenimage");
    WeightMap w = test::openWeights(files.vae);
    w["encoder.conv1.weight"] = torch::zeros({0, 3, 3, 3, 3});  // [base, in, 3, 3, 3]
    const std::string path = test::writeWeights(m_dir, "wan_zero_base.safetensors", w);
    const std::string m = test::errorOf<WeightError>([&] { readSingleFile(path); });
    EXPECT_NE(m.find("'encoder.conv1.weight' has size 0 in dimension 0"), std::string::npos) << m;
    int status = -1;
    const std::string out = test::runCli("inspect '" + path + "'", status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find("'encoder.conv1.weight' has size 0"), std::string::npos) << out;
}

TEST_F(HostileSingleFile, T5SizesSwept) {
    sweepFile(test::dataPath("golden/t5/model.safetensors"));
}

TEST_F(HostileSingleFile, Flux1SetSizesSwept) {
    const auto f = test::writeTinyFlux1(m_dir);
    for (const auto& path : {f.bfl, f.ae, f.clipL, f.t5}) sweepFile(path);
}

TEST_F(HostileSingleFile, AnimaSetSizesSwept) {
    const auto f = test::writeTinyAnima(m_dir);
    for (const auto& path : {f.dit, f.qwen, f.vae}) sweepFile(path);
}

TEST_F(HostileSingleFile, QwenImageSetSizesSwept) {
    const auto f = test::writeTinyQwenImage(m_dir);
    for (const auto& path : {f.dit, f.textEncoder, f.vae}) sweepFile(path);
}

TEST_F(HostileSingleFile, SdCheckpointsSizesSwept) {
    const auto sdxl = test::writeTinySd(m_dir + "/xl", true, test::sdEulerConfig());
    sweepFile(test::writeSdSingleFile(sdxl, m_dir + "/sdxl.safetensors", true));
    const auto sd2 = test::writeTinySd2(m_dir + "/sd2", test::sdEulerConfig());
    sweepFile(test::writeSdSingleFile(sd2, m_dir + "/sd21.safetensors", false));
}

}  // namespace hs
