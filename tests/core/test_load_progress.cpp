// Loading reports its progress per component and per shard, and a cancel lands within one
// tensor: a T5 encoder of 2.3 GB (24 layers of width 2048 in bf16, two shards written sparse, so
// the test writes no data) starts loading on a thread, the reports arrive with growing bytes and
// the true total, and a cancel set after them makes loadComponent throw Cancelled within a second,
// leaving no component and no view of the files alive.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "base/cancel.h"
#include "base/load_progress.h"
#include "io/safetensors.h"
#include "models/registry.h"
#include "test_util.h"

namespace hs {
namespace {

using ClockLoadProgress = std::chrono::steady_clock;

nlohmann::json wideT5(int layers) {
    return {{"architectures", {"T5EncoderModel"}},
            {"vocab_size", 64},
            {"d_model", 2048},
            {"d_kv", 64},
            {"d_ff", 5120},
            {"num_layers", layers},
            {"num_heads", 32},
            {"relative_attention_num_buckets", 32},
            {"relative_attention_max_distance", 128},
            {"layer_norm_epsilon", 1e-6},
            {"feed_forward_proj", "gated-gelu"}};
}

// A bf16 safetensors file holding `tensors` (name, shape) as zeros, written sparse: header,
// then the file extended to its full length without writing the data.
uint64_t writeSparse(const std::string& path,
                     const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    uint64_t at = 0;
    for (const auto& [name, shape] : tensors) {
        uint64_t n = 2;
        for (auto d : shape) n *= uint64_t(d);
        header[name] = {{"dtype", "BF16"}, {"shape", shape}, {"data_offsets", {at, at + n}}};
        at += n;
    }
    std::string text = header.dump();
    while (text.size() % 8) text += ' ';
    std::ofstream out(path, std::ios::binary);
    const uint64_t len = text.size();
    out.write(reinterpret_cast<const char*>(&len), 8);  // little-endian on every host we build
    out << text;
    out.close();
    std::filesystem::resize_file(path, 8 + len + at);
    return at;
}

struct Written {
    std::string index;
    uint64_t bytes = 0;
};

// The model `config` describes, split over two sparse shards plus their index.
Written writeShardedModel(const std::string& dir, const nlohmann::json& config) {
    const auto family = FamilyRegistry::global().require("T5EncoderModel", "test");
    std::vector<std::pair<std::string, std::vector<int64_t>>> all;
    {
        nn::MetaConstruction meta;  // names and shapes only, nothing allocated
        auto c = family->build({dir, config, {}}, "text_encoder_2");
        for (auto& kv : stateOf(c->module())) all.emplace_back(kv.first, kv.second.sizes().vec());
    }
    const size_t half = all.size() / 2;
    const std::vector<std::pair<std::string, std::vector<int64_t>>> a(all.begin(),
                                                                      all.begin() + half),
        b(all.begin() + half, all.end());
    Written w;
    w.bytes = writeSparse(dir + "/model-00001-of-00002.safetensors", a) +
              writeSparse(dir + "/model-00002-of-00002.safetensors", b);
    nlohmann::json map = nlohmann::json::object();
    for (const auto& t : a) map[t.first] = "model-00001-of-00002.safetensors";
    for (const auto& t : b) map[t.first] = "model-00002-of-00002.safetensors";
    w.index = dir + "/model.safetensors.index.json";
    std::ofstream(w.index) << nlohmann::json{{"weight_map", map}}.dump();
    return w;
}

bool mapped(const std::string& dir) {
    for (const auto& r : mappedFileRanges())
        if (r.path.rfind(dir, 0) == 0) return true;
    return false;
}

class LoadProgressTest : public hs::test::TempDirTest {};

// The ranges /proc/self/maps lists, read as Halfscope once read them: 512-byte chunks, each
// parsed as a line of its own.
std::vector<uintptr_t> rangeStartsReadInChunks() {
    std::vector<uintptr_t> out;
    FILE* f = std::fopen("/proc/self/maps", "r");
    char line[512];
    while (f && std::fgets(line, sizeof line, f)) {
        unsigned long a = 0, b = 0, inode = 0;
        char perms[8] = {0};
        if (std::sscanf(line, "%lx-%lx %7s %*s %*s %lu", &a, &b, perms, &inode) == 4 &&
            perms[0] == 'r' && perms[1] == '-' && inode != 0)
            out.push_back(a);
    }
    if (f) std::fclose(f);
    return out;
}

// Where a mapped file's path starts in its /proc/self/maps line.
size_t pathColumnOf(const std::string& path) {
    std::ifstream f("/proc/self/maps");
    std::string line;
    while (std::getline(f, line))
        if (line.find(path) != std::string::npos) return line.find(path);
    return 0;
}

// A model in a folder whose long name spells a mapping line where a 512-byte read would cut the
// line: the list of mapped files is read line by line whole, so the tail of a long path is
// never taken for a range of its own (whose pages streaming would then drop).
TEST_F(LoadProgressTest, ALongPathThatSpellsAMappingIsNotARange) {
    std::filesystem::create_directories(m_dir + "/p");
    writeSparse(m_dir + "/p/model.safetensors", {{"w", {64, 64}}});
    const auto probe = SafetensorsFile::open(m_dir + "/p/model.safetensors");
    const size_t column = pathColumnOf(m_dir + "/p/model.safetensors");
    ASSERT_GT(column, 0u);
    // The path's bytes from 511 - column on are the second 512-byte chunk of its line.
    const size_t before = 511 - column - m_dir.size() - 1;
    ASSERT_GT(before, 10u);
    ASSERT_LT(before, 500u);
    const size_t third = before / 3;
    const std::string a(third, 'a'), b(third, 'b'), c(before - 2 * third - 2, 'c');
    const std::string bogus = "7f0000000000-7f0000100000 r--p 00000000 00:00 4242 ";
    const std::string dir = m_dir + "/" + a + "/" + b + "/" + c + bogus + "x";
    std::filesystem::create_directories(dir);
    writeSparse(dir + "/model.safetensors", {{"w", {64, 64}}});
    const auto file = SafetensorsFile::open(dir + "/model.safetensors");
    ASSERT_TRUE(mapped(dir));
    const auto chunked = rangeStartsReadInChunks();
    ASSERT_NE(std::find(chunked.begin(), chunked.end(), 0x7f0000000000ul), chunked.end())
        << "the path did not land where a 512-byte read cuts its line (column " << column << ")";
    for (const auto& r : mappedFileRanges()) EXPECT_NE(r.begin, 0x7f0000000000ul) << r.path;
}

TEST_F(LoadProgressTest, MultiGigabyteLoadReportsShardsAndCancelsWithinASecond) {
    const auto space = std::filesystem::space(m_dir);
    if (space.available < (uint64_t(1) << 30)) GTEST_SKIP() << "less than 1 GiB free";
    const Written w = writeShardedModel(m_dir, wideT5(24));
    ASSERT_GE(w.bytes, uint64_t(2) << 30);  // >= 2 GiB of weights

    std::weak_ptr<SafetensorsFile> shard0, shard1;
    std::mutex mutex;
    std::vector<LoadProgress> seen;
    std::atomic<bool> cancel{false};
    ClockLoadProgress::time_point thrownAt{};
    std::string outcome;
    std::thread loader([&] {
        const CancelScope scope(&cancel);
        const LoadProgressScope progress([&](const LoadProgress& p) {
            std::lock_guard<std::mutex> lock(mutex);
            seen.push_back(p);
        });
        const auto family = FamilyRegistry::global().require("T5EncoderModel", "test");
        try {
            TensorSet set = TensorSet::open(w.index);
            shard0 = set.files().at(0);
            shard1 = set.files().at(1);
            auto c = loadComponent(*family, {m_dir, wideT5(24), weightMapOf(set)},
                                   PrecisionPolicy(PrecisionPlan(), torch::kCPU), "text_encoder_2");
            outcome = "loaded";
        } catch (const Cancelled&) {
            thrownAt = ClockLoadProgress::now();
            outcome = "cancelled";
        } catch (const std::exception& e) {
            outcome = e.what();
        }
    });
    // Cancel once two reports with bytes have come (the load is well under way).
    const auto deadline = ClockLoadProgress::now() + std::chrono::seconds(60);
    ClockLoadProgress::time_point cancelledAt{};
    while (ClockLoadProgress::now() < deadline) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            int withBytes = 0;
            for (const auto& p : seen) withBytes += p.bytesDone > 0;
            if (withBytes >= 2) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    cancelledAt = ClockLoadProgress::now();
    cancel = true;
    loader.join();

    ASSERT_EQ(outcome, "cancelled");
    const double late = std::chrono::duration<double>(thrownAt - cancelledAt).count();
    EXPECT_LT(late, 1.0) << "the cancel took " << late << " s to land";
    std::printf("cancel landed %.3f s after it was set; %zu reports\n", late, seen.size());

    ASSERT_GE(seen.size(), 3u);
    EXPECT_EQ(seen.front().bytesDone, 0u);  // the start is reported before any tensor
    uint64_t last = 0;
    for (const auto& p : seen) {
        EXPECT_EQ(p.component, "text_encoder_2");
        EXPECT_EQ(p.bytesTotal, w.bytes);  // every tensor of the checkpoint is loaded
        EXPECT_GE(p.bytesDone, last);
        EXPECT_EQ(p.fileCount, 2);
        EXPECT_TRUE(p.fileIndex == 1 || p.fileIndex == 2) << p.fileIndex;
        EXPECT_NE(p.file.find("model-0000"), std::string::npos) << p.file;
        EXPECT_FALSE(p.done);
        last = p.bytesDone;
    }
    EXPECT_GT(last, 0u);
    EXPECT_LT(last, w.bytes);
    EXPECT_GE(seen.back().secondsLeft, 0);
    EXPECT_GT(seen.back().elapsedSeconds, 0);
    // Nothing of the half-loaded component survives: no view keeps a shard mapped.
    EXPECT_TRUE(shard0.expired());
    EXPECT_TRUE(shard1.expired());
    EXPECT_FALSE(mapped(m_dir));
}

TEST_F(LoadProgressTest, SmallLoadEndsWithADoneReportAndTextSaysWhatItRead) {
    nlohmann::json config = wideT5(1);
    config["d_model"] = 64, config["d_kv"] = 16, config["num_heads"] = 4, config["d_ff"] = 96;
    const Written w = writeShardedModel(m_dir, config);
    std::vector<LoadProgress> seen;
    {
        const LoadProgressScope progress([&](const LoadProgress& p) { seen.push_back(p); });
        const auto family = FamilyRegistry::global().require("T5EncoderModel", "test");
        TensorSet set = TensorSet::open(w.index);
        auto c = loadComponent(*family, {m_dir, config, weightMapOf(set)},
                               PrecisionPolicy(PrecisionPlan(), torch::kCPU), "text_encoder_2");
        ASSERT_TRUE(c);
    }
    ASSERT_GE(seen.size(), 2u);
    EXPECT_EQ(seen.front().bytesDone, 0u);
    EXPECT_TRUE(seen.back().done);
    EXPECT_EQ(seen.back().bytesDone, w.bytes);
    EXPECT_EQ(seen.back().secondsLeft, 0);
    const std::string text = loadProgressText(seen.front());
    EXPECT_EQ(text.rfind("text_encoder_2: shard 1/2, 0/", 0), 0u) << text;
    EXPECT_NE(loadProgressText(seen.back()).find("done in"), std::string::npos);
    LoadProgress big;
    big.component = "transformer";
    big.fileIndex = 1, big.fileCount = 2;
    big.bytesDone = 1200000000, big.bytesTotal = 4000000000, big.secondsLeft = 3.2;
    EXPECT_EQ(loadProgressText(big), "transformer: shard 1/2, 1.2/4.0 GB, 3 s left");

    // Without a scope nothing is reported, and no report outlives its load.
    seen.clear();
    TensorSet set = TensorSet::open(w.index);
    const auto family = FamilyRegistry::global().require("T5EncoderModel", "test");
    loadComponent(*family, {m_dir, config, weightMapOf(set)},
                  PrecisionPolicy(PrecisionPlan(), torch::kCPU), "text_encoder_2");
    EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace hs
