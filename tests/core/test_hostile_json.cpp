// Hostile JSON and text files in a model folder: a FIFO, /dev/zero or a folder in place of a
// config, tokenizer file, scheduler config or image is refused at once (never a blocked read or
// an endless one); a file past its size cap is refused without being read (sparse files here,
// so nothing large is written); JSON nested 100 000 deep is refused before parsing; error
// messages quote at most a few dozen characters of any value; model_index.json component names
// cannot leave the pipeline folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "io/bounded_read.h"
#include "io/image_io.h"
#include "io/model_folder.h"
#include "models/common/config.h"
#include "sampling/scheduler_config.h"
#include "test_util.h"
#include "text/clip_tokenizer.h"
#include "text/qwen_tokenizer.h"
#include "text/t5_tokenizer.h"
#include "text/tokenizer_files.h"

namespace fs = std::filesystem;

namespace {

using hs::test::writeTextFile;

// The message of whatever `fn` throws ("no error" when it returns).
template <typename Fn>
std::string errorOfHostileJson(Fn fn) {
    return hs::test::messageOf(fn);
}

double secondsOf(const std::function<void()>& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class HostileJsonTest : public hs::test::TempDirTest {
protected:
    std::string sub(const std::string& rel) const { return m_dir + "/" + rel; }

    // Puts a FIFO, a symlink to /dev/zero or a folder at `path`.
    void makeFifo(const std::string& path) {
        fs::create_directories(fs::path(path).parent_path());
        ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    }
    void makeDevZero(const std::string& path) {
        fs::create_directories(fs::path(path).parent_path());
        fs::create_symlink("/dev/zero", path);
    }
    // A sparse file of `bytes` bytes: nothing is written to disk.
    void makeSparse(const std::string& path, uint64_t bytes) {
        writeTextFile(path, "");
        ASSERT_EQ(::truncate(path.c_str(), off_t(bytes)), 0);
    }
};

// config.json, model_index.json and scheduler_config.json all go through readJsonFile.
TEST_F(HostileJsonTest, ReadJsonFileRefusesPipesDevicesAndFoldersAtOnce) {
    makeFifo(sub("fifo/config.json"));
    makeDevZero(sub("zero/config.json"));
    fs::create_directories(sub("dir/config.json"));
    double took = secondsOf([&] {
        EXPECT_HAS(errorOfHostileJson([&] { hs::readJsonFile(sub("fifo/config.json")); }),
                   "is a pipe (FIFO), expected a regular file");
        EXPECT_HAS(errorOfHostileJson([&] { hs::readJsonFile(sub("zero/config.json")); }),
                   "is a device, expected a regular file");
        EXPECT_HAS(errorOfHostileJson([&] { hs::readJsonFile(sub("dir/config.json")); }),
                   "is a folder, expected a regular file");
        // The component opener reports the same, naming the file.
        const std::string e = errorOfHostileJson([&] { hs::openComponent(sub("fifo")); });
        EXPECT_HAS(e, "fifo/config.json");
        EXPECT_HAS(e, "pipe");
    });
    EXPECT_LT(took, 1.0);
}

TEST_F(HostileJsonTest, SymlinkToARegularFileStillWorks) {
    // Hugging Face caches are made of symlinks into blobs/.
    writeTextFile(sub("blobs/abc"), R"({"_class_name": "AutoencoderKL", "latent_channels": 4})");
    fs::create_directories(sub("snap"));
    fs::create_symlink("../blobs/abc", sub("snap/config.json"));
    const auto j = hs::readJsonFile(sub("snap/config.json"));
    EXPECT_EQ(j["latent_channels"], 4);
}

TEST_F(HostileJsonTest, OversizedConfigIsRefusedWithoutReading) {
    makeSparse(sub("big/config.json"), hs::kMaxConfigBytes + 1);
    const std::string e = errorOfHostileJson([&] { hs::readJsonFile(sub("big/config.json")); });
    EXPECT_HAS(e, "larger than the 16 MB accepted");
}

TEST_F(HostileJsonTest, DeeplyNestedConfigAndIndexAreRefusedQuickly) {
    const std::string deep(100000, '[');
    writeTextFile(sub("deep/config.json"), deep + std::string(100000, ']'));
    writeTextFile(sub("pipe/model_index.json"), "{\"vae\": " + deep);
    double took = secondsOf([&] {
        EXPECT_HAS(errorOfHostileJson([&] { hs::readJsonFile(sub("deep/config.json")); }),
                   "nested deeper than 64 levels");
        EXPECT_HAS(errorOfHostileJson([&] { hs::openPipeline(sub("pipe")); }),
                   "nested deeper than 64 levels");
    });
    EXPECT_LT(took, 1.0);
}

TEST_F(HostileJsonTest, ParserMessagesAreCutShort) {
    // An unterminated 1 MB string: nlohmann's message quotes the whole token it stopped in.
    writeTextFile(sub("s/config.json"), "{\"a\": \"" + std::string(1 << 20, 'x'));
    const std::string e = errorOfHostileJson([&] { hs::readJsonFile(sub("s/config.json")); });
    EXPECT_HAS(e, "invalid JSON");
    EXPECT_LT(e.size(), 600u);
}

TEST_F(HostileJsonTest, TokenizerFilesAreBounded) {
    // CLIP: vocab.json a FIFO, then merges.txt /dev/zero.
    writeTextFile(sub("clip/merges.txt"), "#version: 0.2\na b\n");
    makeFifo(sub("clip/vocab.json"));
    double took = secondsOf([&] {
        const std::string e =
            errorOfHostileJson([&] { hs::ClipTokenizer::fromFolder(sub("clip")); });
        EXPECT_HAS(e, "vocab.json");
        EXPECT_HAS(e, "is a pipe (FIFO)");
    });
    EXPECT_LT(took, 1.0);
    fs::remove(sub("clip/vocab.json"));
    writeTextFile(sub("clip/vocab.json"), R"({"a": 0, "b": 1, "ab": 2})");
    fs::remove(sub("clip/merges.txt"));
    makeDevZero(sub("clip/merges.txt"));
    EXPECT_HAS(errorOfHostileJson([&] { hs::ClipTokenizer::fromFolder(sub("clip")); }),
               "is a device");

    // T5: spiece.model a folder.
    fs::create_directories(sub("t5/spiece.model"));
    EXPECT_HAS(errorOfHostileJson([&] { hs::T5Tokenizer::fromFolder(sub("t5")); }), "is a folder");

    // Qwen: tokenizer.json past the cap (sparse), then nested 100 000 deep.
    makeSparse(sub("qwen/tokenizer.json"), hs::kMaxTokenizerBytes + 1);
    EXPECT_HAS(errorOfHostileJson([&] { hs::QwenTokenizer::fromFolder(sub("qwen")); }),
               "larger than the 64 MB accepted");
    fs::remove(sub("qwen/tokenizer.json"));
    writeTextFile(sub("qwen/tokenizer.json"), std::string(100000, '{'));
    took = secondsOf([&] {
        EXPECT_HAS(errorOfHostileJson([&] { hs::QwenTokenizer::fromFolder(sub("qwen")); }),
                   "nested deeper than 64 levels");
    });
    EXPECT_LT(took, 1.0);
}

TEST_F(HostileJsonTest, TokenIdsOutsideTheTableAreRefusedNotTruncated) {
    // 2^32 + 1 would become id 1 through get<int>().
    writeTextFile(sub("clip/vocab.json"), R"({"a": 0, "b": 4294967297})");
    writeTextFile(sub("clip/merges.txt"), "#version: 0.2\na b\n");
    const std::string e = errorOfHostileJson([&] { hs::ClipTokenizer::fromFolder(sub("clip")); });
    EXPECT_HAS(e, "the id of 'b' is 4294967297, outside 0..16777216");

    writeTextFile(sub("qwen/vocab.json"), R"({"a": 0, "b": -7})");
    writeTextFile(sub("qwen/merges.txt"), "#version: 0.2\na b\n");
    EXPECT_HAS(errorOfHostileJson([&] { hs::QwenTokenizer::fromFolder(sub("qwen")); }),
               "the id of 'b' is -7, outside 0..16777216");

    // A 1 MB token is quoted by its first 40 bytes only.
    const std::string longToken(1 << 20, 'k');
    writeTextFile(sub("clip/vocab.json"), "{\"" + longToken + "\": \"x\"}");
    const std::string e2 = errorOfHostileJson([&] { hs::ClipTokenizer::fromFolder(sub("clip")); });
    EXPECT_HAS(e2, "is not an integer");
    EXPECT_LT(e2.size(), 300u);
}

TEST_F(HostileJsonTest, HugeSpecialTokenIsRefusedQuotedShort) {
    writeTextFile(sub("clip/vocab.json"), R"({"a": 0, "b": 1})");
    writeTextFile(sub("clip/merges.txt"), "#version: 0.2\na b\n");
    writeTextFile(sub("clip/special_tokens_map.json"),
                  "{\"eos_token\": {\"content\": \"" + std::string(2 << 20, 'e') + "\"}}");
    const std::string e = errorOfHostileJson([&] { hs::ClipTokenizer::fromFolder(sub("clip")); });
    EXPECT_HAS(e, "'eos_token' is 'eeee");
    EXPECT_HAS(e, "longer than 1024 bytes");
    EXPECT_LT(e.size(), 400u);
}

TEST_F(HostileJsonTest, SchedulerConfigTextIsBounded) {
    const std::string deep = "{\"a\": " + std::string(100000, '[');
    EXPECT_HAS(
        errorOfHostileJson([&] { hs::parseSchedulerConfigText(deep, "scheduler_config.json"); }),
        "nested deeper than 64 levels");
    const std::string bad = "{\"a\": \"" + std::string(1 << 20, 'y');
    const std::string e = errorOfHostileJson([&] { hs::parseSchedulerConfigText(bad, "s.json"); });
    EXPECT_HAS(e, "not valid JSON");
    EXPECT_LT(e.size(), 600u);
    // A scheduler folder's scheduler_config.json that is a FIFO.
    makeFifo(sub("scheduler/scheduler_config.json"));
    hs::PipelineComponent c;
    c.dir = sub("scheduler");
    EXPECT_HAS(errorOfHostileJson([&] { hs::schedulerConfigOf(c); }), "is a pipe (FIFO)");
}

TEST_F(HostileJsonTest, RunSchedulerRefusesAFifoConfigAtOnce) {
    makeFifo(sub("cli/scheduler_config.json"));
    int status = 0;
    const std::string out =
        hs::test::runCli("run-scheduler --config " + sub("cli/scheduler_config.json") +
                             " --inputs " + sub("in.st") + " --output " + sub("o.st"),
                         status);
    EXPECT_NE(status, 0) << out;
    EXPECT_HAS(out, "is a pipe (FIFO), expected a regular file");
}

TEST_F(HostileJsonTest, ImagesAreRegularFilesWithinACap) {
    makeFifo(sub("img/fifo.png"));
    makeDevZero(sub("img/zero.png"));
    EXPECT_HAS(errorOfHostileJson([&] { hs::readImage(sub("img/fifo.png")); }), "is a pipe (FIFO)");
    EXPECT_HAS(errorOfHostileJson([&] { hs::readImage(sub("img/zero.png")); }), "is a device");
    EXPECT_HAS(errorOfHostileJson([&] { hs::readImage(sub("img")); }), "is a folder");
    makeSparse(sub("img/huge.png"), 8ull << 30);
    EXPECT_HAS(errorOfHostileJson([&] { hs::readImage(sub("img/huge.png")); }), "larger than the");
}

TEST(QuoteJsonValue, NeverLongNeverRecursive) {
    EXPECT_EQ(hs::quoteJsonValue(nlohmann::json(42)), "42");
    EXPECT_EQ(hs::quoteJsonValue(nlohmann::json("silu")), "\"silu\"");
    EXPECT_EQ(hs::quoteJsonValue(nlohmann::json::array({1, 2, 3})), "[1, 2, 3]");
    EXPECT_EQ(hs::quoteJsonValue(nlohmann::json::object({{"a", 1}, {"b", 2}})),
              "an object with 2 keys");
    // A 2 MB string, a 2 MB flat list, and a value nested 60 deep with 2 MB inside.
    const std::string s = hs::quoteJsonValue(nlohmann::json(std::string(2 << 20, 'z')));
    EXPECT_LE(s.size(), 44u);
    EXPECT_EQ(s.substr(s.size() - 3), "...");
    const std::string l = hs::quoteJsonValue(nlohmann::json(std::vector<int>(1 << 19, 7)));
    EXPECT_LE(l.size(), 64u);
    EXPECT_HAS(l, "(524288 items)");
    nlohmann::json deep = std::vector<int>(1 << 19, 1);
    for (int i = 0; i < 60; ++i) deep = nlohmann::json::array({deep});
    EXPECT_EQ(hs::quoteJsonValue(deep), "a list of 1 item");
}

TEST_F(HostileJsonTest, ComponentNamesCannotLeaveThePipelineFolder) {
    fs::create_directories(sub("pipe/vae"));
    writeTextFile(sub("pipe/model_index.json"),
                  R"({"_class_name": "P", "vae": ["diffusers", "AutoencoderKL"],
                  "../../etc": ["diffusers", "AutoencoderKL"]})");
    std::string e = errorOfHostileJson([&] { hs::openPipeline(sub("pipe")); });
    EXPECT_HAS(e, "component '../../etc' is not a plain folder name");
    EXPECT_HAS(e, "'..' leads outside the pipeline folder");

    writeTextFile(sub("pipe/model_index.json"),
                  R"({"_class_name": "P", "/etc": ["diffusers", "AutoencoderKL"]})");
    e = errorOfHostileJson([&] { hs::openPipeline(sub("pipe")); });
    EXPECT_HAS(e, "component '/etc'");
    EXPECT_HAS(e, "absolute path");

    writeTextFile(sub("pipe/model_index.json"),
                  R"({"_class_name": "P", "vae/../..": ["diffusers", "AutoencoderKL"]})");
    EXPECT_HAS(errorOfHostileJson([&] { hs::openPipeline(sub("pipe")); }), "holds a '/'");

    // A modular index's subfolder may not leave the folder either.
    fs::remove(sub("pipe/model_index.json"));
    writeTextFile(sub("pipe/modular_model_index.json"),
                  R"({"_class_name": "P", "vae": ["diffusers", "AutoencoderKL",
                  {"subfolder": "../../etc"}]})");
    e = errorOfHostileJson([&] { hs::openPipeline(sub("pipe")); });
    EXPECT_HAS(e, "subfolder '../../etc'");
    EXPECT_HAS(e, "outside the pipeline folder");

    // A plain name still opens.
    writeTextFile(
        sub("pipe/modular_model_index.json"),
        R"({"_class_name": "P", "vae": ["diffusers", "AutoencoderKL", {"subfolder": "vae"}]})");
    EXPECT_EQ(hs::openPipeline(sub("pipe")).components.size(), 1u);
}

}  // namespace
