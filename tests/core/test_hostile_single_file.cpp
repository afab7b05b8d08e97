// Single files whose tensors have sizes no model has. A zero-sized tensor is legal safetensors,
// and converters divide by sizes they read (heads from a bias's columns, a VAE's level widths
// from its first convolution): each real layout the fixtures write, with every tensor in turn
// made zero-sized, one wide, one larger or 2^62 wide (with no bytes) along each of its dimensions,
// converts or is refused with an error naming the file; none may end the process (SIGFPE, a failed
// allocation).
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "anima_fixture.h"
#include "flux1_fixture.h"
#include "io/safetensors.h"
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

constexpr int64_t kHuge = int64_t(1) << 62;

// The altered shapes of `sizes` along `d`: 0, 1, one larger and, when another dimension can be
// 0 (so that the tensor still holds no bytes, as a legal file can), 2^62.
std::vector<std::vector<int64_t>> alteredShapes(const std::vector<int64_t>& sizes, size_t d) {
    std::vector<std::vector<int64_t>> out;
    for (const int64_t size : {int64_t(0), int64_t(1), sizes[d] + 1}) {
        out.push_back(sizes);
        out.back()[d] = size;
    }
    if (sizes.size() >= 2) {
        out.push_back(sizes);
        out.back()[d] = kHuge;
        out.back()[d == 0 ? 1 : 0] = 0;
    }
    return out;
}

// Converts `w` once for every tensor, dimension and altered shape.
SweepCount sweepSizesOf(const WeightMap& w, const std::string& name) {
    SweepCount n;
    for (const auto& [key, t] : w) {
        for (size_t d = 0; d < size_t(t.dim()); ++d) {
            for (const auto& sizes : alteredShapes(t.sizes().vec(), d)) {
                WeightMap bad = w;
                bad[key] = torch::zeros(sizes, t.options());
                SCOPED_TRACE(key + " shape " + shapeText(sizes));
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
    int64_t copies = 0;
    for (const auto& kv : w)
        for (size_t d = 0; d < size_t(kv.second.dim()); ++d)
            copies += int64_t(alteredShapes(kv.second.sizes().vec(), d).size());
    EXPECT_EQ(n.converted + n.refused, copies);
    EXPECT_GT(n.refused, 0);
    std::cout << "[ sweep ] " << path << ": " << w.size() << " tensors, " << copies
              << " altered copies, " << n.refused << " refused\n";
}

class HostileSingleFile : public hs::test::TempDirTest {};

}  // namespace

// The two files that ended the CLI and the library with SIGFPE (tests/data/hostile: every
// tensor of a real fixture cut to one element, the divisor's dimension to 0). Every entry point
// that reads a single file names the tensor and exits 2; the library lists the file with that
// error and goes on.
struct CrashingFile {
    const char* file;      // under tests/data/hostile/
    const char* comfyDir;  // where ComfyUI keeps such a file
    const char* error;     // what every reader must say
};

const CrashingFile kCrashingFiles[] = {
    {"t5xxl_zero_heads.safetensors", "models/text_encoders",
     "'encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight' has size 0 in "
     "dimension 1"},
    {"wan_vae_zero_base.safetensors", "models/vae",
     "'encoder.conv1.weight' has size 0 in dimension 0"},
};

TEST_F(HostileSingleFile, TheCrashingFilesAreRefusedNamingTheTensorEverywhere) {
    const std::string inputs = m_dir + "/inputs.safetensors";
    writeSafetensors(inputs, {{"x", torch::zeros({1, 4})}});
    for (const CrashingFile& c : kCrashingFiles) {
        const std::string path = test::dataPath(std::string("hostile/") + c.file);
        SCOPED_TRACE(path);
        const std::string m = test::errorOf<WeightError>([&] { readSingleFile(path); });
        EXPECT_NE(m.find(c.error), std::string::npos) << m;
        // inspect still describes the tensors, then says why the layout does not convert.
        for (const std::string& args :
             {"inspect '" + path + "'",
              "run-module --model '" + path + "' --inputs '" + inputs + "' --output '" + m_dir +
                  "/out.safetensors'",
              "generate --model '" + path + "' --out '" + m_dir + "/out.png' --steps 1"}) {
            SCOPED_TRACE(args);
            int status = -1;
            const std::string out = test::runCli(args, status);
            EXPECT_EQ(status, 2) << out;
            EXPECT_NE(out.find(c.error), std::string::npos) << out;
        }
        EXPECT_FALSE(fs::exists(m_dir + "/out.png"));
        EXPECT_FALSE(fs::exists(m_dir + "/out.safetensors"));
        // A library scan lists the file with the error, and the other entries.
        const std::string comfy = m_dir + "/comfy";
        fs::create_directories(comfy + "/" + c.comfyDir);
        fs::copy_file(path, comfy + "/" + c.comfyDir + "/" + c.file);
        int status = -1;
        const std::string list =
            test::runCli("library --no-cache --json --comfyui '" + comfy + "'", status, true);
        EXPECT_EQ(status, 0) << list;
        const auto j = nlohmann::json::parse(list);
        bool named = false;
        for (const auto& e : j.at("entries"))
            if (e.at("path").get<std::string>().find(c.file) != std::string::npos)
                named = e.at("error").is_string() &&
                        e.at("error").get<std::string>().find(c.error) != std::string::npos;
        EXPECT_TRUE(named) << list;
    }
}

// A layout found both under model.diffusion_model. and at the root gives two transformers: an
// error naming both places, not the last one silently.
TEST_F(HostileSingleFile, TwoDenoisersInOneFileAreRefusedNamingBothPlaces) {
    const WeightMap w = test::openWeights(test::dataPath("golden/flux_bfl.safetensors"));
    WeightMap twice = w;
    for (const auto& [key, t] : w) twice["model.diffusion_model." + key] = t;
    const std::string m =
        test::errorOf<WeightError>([&] { convertSingleFile(twice, "two.safetensors"); });
    EXPECT_NE(m.find("two.safetensors: two 'transformer' components in one file"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("at the root"), std::string::npos) << m;
    EXPECT_NE(m.find("model.diffusion_model.*"), std::string::npos) << m;
    EXPECT_NO_THROW(convertSingleFile(w, "one.safetensors"));
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
