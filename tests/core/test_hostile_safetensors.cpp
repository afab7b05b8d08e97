// Hostile safetensors files: headers nested to exhaust memory, shapes whose products overflow,
// files that shrink while they are mapped, FIFOs and devices in place of weights, and shard
// indexes that point outside their folder. Each case must end in a FileError naming the file,
// quickly, with the process alive.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "inspect/inspect.h"
#include "inspect/weight_stats.h"
#include "io/safetensors.h"
#include "models/common/weights.h"
#include "numerics/precision_policy.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

std::string le64HostileSafetensors(uint64_t n) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = char(uint8_t(n >> (8 * i)));
    return s;
}

void writeAllHostileSafetensors(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

class HostileSafetensors : public hs::test::TempDirTest {
protected:
    std::string put(const std::string& name, const std::string& header,
                    const std::string& data = "") {
        writeAllHostileSafetensors(path(name),
                                   le64HostileSafetensors(header.size()) + header + data);
        return path(name);
    }
    // Two F32 tensors of 64 Ki elements each (256 KiB, many pages): "a" first, "b" after it.
    std::string twoTensors(const std::string& name) {
        hs::writeSafetensors(
            path(name), {{"a", torch::full({65536}, 1.5f)}, {"b", torch::full({65536}, 2.5f)}});
        return path(name);
    }
};

void halve(const std::string& file) {
    const auto size = fs::file_size(file);
    ASSERT_EQ(::truncate(file.c_str(), off_t(size / 2)), 0);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// ---- 1. nesting --------------------------------------------------------------------------------

TEST_F(HostileSafetensors, HundredMegabyteNestedHeaderIsRefusedQuickly) {
    // nlohmann would build one node per '[' (gigabytes) before any other check could run.
    const uint64_t n = hs::kMaxHeaderBytes;
    for (const std::string prefix : {std::string("{\"a\":"), std::string("{")}) {
        SCOPED_TRACE(prefix);
        std::string bytes = le64HostileSafetensors(n) + prefix;
        bytes.resize(8 + n, '[');
        const auto t0 = std::chrono::steady_clock::now();
        try {
            hs::parseStHeader(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                              bytes.size());
            ADD_FAILURE() << "accepted";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos)
                << e.what();
        }
        EXPECT_LT(secondsSince(t0), 1.0);
    }
}

TEST_F(HostileSafetensors, NestedMetadataInAFileIsRefused) {
    // Valid JSON, 200 levels deep: the old parser built it and then complained about the type.
    const std::string header =
        "{\"__metadata__\":{\"k\":" + std::string(200, '[') + std::string(200, ']') + "}}";
    const std::string p = put("deep.safetensors", header);
    hs::test::expectFileError([&] { hs::SafetensorsFile::open(p); }, p,
                              "nested deeper than 64 levels");
}

// ---- 2. shapes ---------------------------------------------------------------------------------

TEST_F(HostileSafetensors, ShapeProductsThatOverflowAreRefused) {
    struct Case {
        const char* shape;
        const char* dtype;
        const char* offsets;
        size_t dataBytes;
    };
    // [2^62, 4, 0] is empty, but its partial product 2^64 overflows (LibTorch's own size
    // arithmetic refuses it too); [2^40, 2^40] has 2^80 elements; [2^61] F64 has 2^64 bytes.
    const Case cases[] = {{"[4611686018427387904, 4, 0]", "U8", "[0,0]", 0},
                          {"[1099511627776, 1099511627776]", "F32", "[0,4]", 4},
                          {"[0, 4611686018427387904, 4]", "F16", "[0,0]", 0},
                          {"[2305843009213693952]", "F64", "[0,8]", 8}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.shape);
        const std::string header = std::string("{\"big\":{\"dtype\":\"") + c.dtype +
                                   "\",\"shape\":" + c.shape + ",\"data_offsets\":" + c.offsets +
                                   "}}";
        const std::string p = put("shape.safetensors", header, std::string(c.dataBytes, '\0'));
        hs::test::expectFileError([&] { hs::SafetensorsFile::open(p); }, p,
                                  "tensor 'big': shape [");
        hs::test::expectFileError([&] { hs::SafetensorsFile::open(p); }, p, "overflows");
    }
}

TEST_F(HostileSafetensors, NumelOfAnUncheckedShapeNeverOverflows) {
    hs::StTensorInfo t;
    t.name = "x";
    t.shape = {int64_t(1) << 62, 4, 0};
    EXPECT_EQ(t.numel(), 0);  // the zero wins, whatever comes before it
    t.shape = {int64_t(1) << 40, int64_t(1) << 40};
    EXPECT_THROW(t.numel(), std::overflow_error);
    t.shape = {3, -2};
    EXPECT_THROW(t.numel(), std::overflow_error);
    t.shape = {3, 5};
    EXPECT_EQ(t.numel(), 15);
}

// ---- 3. files that shrink while mapped ---------------------------------------------------------

TEST_F(HostileSafetensors, TensorOfAFileTruncatedAfterOpeningIsAnError) {
    const std::string p = twoTensors("shrink.safetensors");
    auto f = hs::SafetensorsFile::open(p);
    const auto size = f->fileSize();
    halve(p);
    hs::test::expectFileError([&] { f->tensor("b"); }, p,
                              "file shrank to " + std::to_string(size / 2) +
                                  " bytes after it was opened (was " + std::to_string(size) + ")");
}

TEST_F(HostileSafetensors, ViewReadAfterTruncationSurvivesAndIsReported) {
    const std::string p = twoTensors("view.safetensors");
    auto f = hs::SafetensorsFile::open(p);
    const torch::Tensor b = f->tensor("b");  // a view of the mapping, taken while intact
    EXPECT_NO_THROW(f->checkIntact());
    EXPECT_NO_THROW(hs::checkMappedTensor(b));
    halve(p);
    // Without the guard this read is a SIGBUS: the pages past the new end are gone.
    const double sum = b.sum().item<double>();
    EXPECT_LT(sum, 2.5 * 65536);  // what was cut reads as zeros
    hs::test::expectFileError([&] { f->checkIntact(); }, p, "file shrank");
    hs::test::expectFileError([&] { hs::checkMappedTensor(b); }, p, "file shrank");
    EXPECT_NO_THROW(hs::checkMappedTensor(torch::ones({4})));  // heap tensors are not files
}

TEST_F(HostileSafetensors, LoadingWeightsFromATruncatedFileIsAnError) {
    const std::string p = twoTensors("load.safetensors");
    const hs::TensorSet set = hs::TensorSet::open(p);
    hs::WeightMap weights{{"weight", set.tensor("a").view({256, 256})},
                          {"bias", set.tensor("b").narrow(0, 0, 256)}};
    halve(p);  // "b" lies wholly in the cut half
    torch::nn::Linear linear(256, 256);
    const hs::PrecisionPolicy policy(hs::PrecisionPlan(), torch::kCPU);
    hs::test::expectFileError([&] { hs::loadWeights(*linear, weights, "model", policy); }, p,
                              "file shrank to");
}

TEST_F(HostileSafetensors, WeightStatisticsOfATruncatedFileAreAnError) {
    const std::string p = twoTensors("stats.safetensors");
    const hs::TensorSet set = hs::TensorSet::open(p);
    halve(p);
    hs::test::expectFileError([&] { hs::weightStatsOf(set, "model"); }, p, "file shrank to");
}

TEST_F(HostileSafetensors, InspectOfATruncatedFileIsAnError) {
    const std::string p = twoTensors("inspect.safetensors");
    const hs::TensorSet set = hs::TensorSet::open(p);
    halve(p);
    hs::test::expectFileError([&] { hs::inspectTensors(set); }, p, "file shrank to");
}

// ---- 4. non-regular files ----------------------------------------------------------------------

TEST_F(HostileSafetensors, FifoInPlaceOfWeightsIsRefusedAtOnce) {
    const std::string p = path("model.safetensors");
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();
    hs::test::expectFileError([&] { hs::SafetensorsFile::open(p); }, p,
                              "a pipe (FIFO), not a regular file");
    hs::test::expectFileError([&] { hs::TensorSet::open(p); }, p, "a pipe (FIFO)");
    EXPECT_LT(secondsSince(t0), 1.0);
}

TEST_F(HostileSafetensors, FolderAndDeviceInPlaceOfWeightsAreRefused) {
    const std::string dir = path("dir.safetensors");
    fs::create_directory(dir);
    hs::test::expectFileError([&] { hs::SafetensorsFile::open(dir); }, dir,
                              "is a folder, not a regular");
    const std::string zero = path("zero.safetensors");
    fs::create_symlink("/dev/zero", zero);
    hs::test::expectFileError([&] { hs::SafetensorsFile::open(zero); }, zero,
                              "is a device, not a regular");
}

TEST_F(HostileSafetensors, SymlinkToARegularFileLoads) {
    // The Hugging Face cache links every snapshot file to a blob.
    fs::create_directory(path("blobs"));
    hs::writeSafetensors(path("blobs/abc123"), {{"w", torch::arange(6, torch::kFloat32)}});
    fs::create_symlink(path("blobs/abc123"), path("model.safetensors"));
    auto f = hs::SafetensorsFile::open(path("model.safetensors"));
    EXPECT_TRUE(f->tensor("w").equal(torch::arange(6, torch::kFloat32)));
}

// ---- 5. shard names ----------------------------------------------------------------------------

TEST_F(HostileSafetensors, ShardNamesMustStayInsideTheFolder) {
    hs::writeSafetensors(path("s1.safetensors"), {{"a", torch::ones({2})}});
    fs::create_directory(path("sub"));
    hs::writeSafetensors(path("sub/s2.safetensors"), {{"a", torch::ones({2})}});
    struct Case {
        std::string shard;  // JSON text of the weight_map value
        const char* message;
    };
    const std::vector<Case> cases = {
        {"\"/etc/passwd\"", "is absolute"},
        {"\"" + path("s1.safetensors") + "\"", "is absolute"},
        {"\"../s1.safetensors\"", "climbs out with '..'"},
        {"\"sub/../../s1.safetensors\"", "climbs out with '..'"},
        {"\"sub/../s1.safetensors\"", "climbs out with '..'"},
        {"\"\"", "is empty"},
        // The NUL would cut the name to "s1.safetensors" when opened: a name that lies.
        {"\"s1.safetensors\\u0000.evil\"", "control character"},
        {"\"s1.safetensors\\n\"", "control character"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.shard);
        const std::string idx = path("m.safetensors.index.json");
        writeAllHostileSafetensors(idx, "{\"weight_map\":{\"a\":" + c.shard + "}}");
        hs::test::expectFileError([&] { hs::TensorSet::open(idx); }, idx, c.message);
    }
}

TEST_F(HostileSafetensors, ShardsInSubfoldersAndSymlinkedShardsLoad) {
    const std::string outside = hs::test::tempDir("hostile_st_blobs");
    hs::writeSafetensors(outside + "/blob", {{"b", torch::full({3}, 4.f)}});
    fs::create_directory(path("sub"));
    hs::writeSafetensors(path("sub/s1.safetensors"), {{"a", torch::ones({2})}});
    fs::create_symlink(outside + "/blob", path("s2.safetensors"));  // as in the HF cache
    const std::string idx = path("m.safetensors.index.json");
    writeAllHostileSafetensors(
        idx, R"({"weight_map":{"a":"sub/s1.safetensors","b":"./s2.safetensors"}})");
    const hs::TensorSet set = hs::TensorSet::open(idx);
    EXPECT_TRUE(set.tensor("a").equal(torch::ones({2})));
    EXPECT_TRUE(set.tensor("b").equal(torch::full({3}, 4.f)));
    fs::remove_all(outside);
}
