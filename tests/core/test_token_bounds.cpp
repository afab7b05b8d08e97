// Token ids against the text encoder's embedding table: a tokenizer whose ids reach past the
// table is refused when the pipeline loads (naming the file, the highest id and the rows), and
// no id past the table reaches the lookup at run time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "anima_fixture.h"
#include "denoising/token_bounds.h"
#include "models/common/named_tensors.h"  // InputError
#include "pipeline/pipeline.h"
#include "base/pipeline_error.h"
#include "qwenimage_fixture.h"
#include "runtime/demo_location.h"
#include "test_util.h"

using namespace hs;
namespace fs = std::filesystem;

namespace {

const torch::Device kCpuTokenBounds(torch::kCPU);

struct TempDirTokenBounds {
    std::string path = test::tempDir("token-bounds");
    ~TempDirTokenBounds() { fs::remove_all(path); }
};

nlohmann::json readJsonTokenBounds(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

void writeJsonTokenBounds(const std::string& path, const nlohmann::json& j) {
    std::ofstream(path) << j.dump();
}

// A copy of the shipped demo pipeline (CLIP tokenizer and text encoder).
std::string demoCopy(const std::string& root) {
    const std::string dir = root + "/demo";
    fs::copy(findDemoModel(), dir, fs::copy_options::recursive);
    return dir;
}

std::string loadError(const std::string& dir) {
    try {
        Pipeline::load(dir, PrecisionPlan(), kCpuTokenBounds);
    } catch (const PipelineError& e) {
        return e.what();
    }
    ADD_FAILURE() << dir << " loaded";
    return "";
}

}  // namespace

TEST(TokenBounds, ClipIdPastTheEmbeddingIsRefusedAtLoad) {
    TempDirTokenBounds d;
    const std::string dir = demoCopy(d.path);
    const int rows = readJsonTokenBounds(dir + "/text_encoder/config.json")["vocab_size"];
    // The same number of entries, one with an id past the table: counting entries misses it.
    auto vocab = readJsonTokenBounds(dir + "/tokenizer/vocab.json");
    vocab["A"] = rows + 393;
    writeJsonTokenBounds(dir + "/tokenizer/vocab.json", vocab);
    const std::string msg = loadError(dir);
    EXPECT_NE(msg.find("tokenizer/vocab.json has ids up to " + std::to_string(rows + 393) +
                       " but text_encoder's embedding table has " + std::to_string(rows) + " rows"),
              std::string::npos)
        << msg;
}

TEST(TokenBounds, ClipLengthPastThePositionsIsRefusedAtLoad) {
    TempDirTokenBounds d;
    const std::string dir = demoCopy(d.path);
    const int positions =
        readJsonTokenBounds(dir + "/text_encoder/config.json")["max_position_embeddings"];
    auto cfg = readJsonTokenBounds(dir + "/tokenizer/tokenizer_config.json");
    cfg["model_max_length"] = positions * 2;
    writeJsonTokenBounds(dir + "/tokenizer/tokenizer_config.json", cfg);
    const std::string msg = loadError(dir);
    EXPECT_NE(msg.find("pads to " + std::to_string(positions * 2) +
                       " tokens but text_encoder has " + std::to_string(positions) + " positions"),
              std::string::npos)
        << msg;
}

TEST(TokenBounds, QwenAddedTokenPastTheEmbeddingIsRefusedAtLoad) {
    TempDirTokenBounds d;
    const test::QwenImageFiles f = test::writeTinyQwenImage(d.path + "/q");
    const std::string cfgPath = f.folder + "/tokenizer/tokenizer_config.json";
    auto cfg = readJsonTokenBounds(cfgPath);
    cfg["added_tokens_decoder"]["200000"] = {{"content", "<|far|>"}, {"special", true}};
    writeJsonTokenBounds(cfgPath, cfg);
    const std::string msg = loadError(f.folder);
    EXPECT_NE(msg.find("has ids up to 200000 but text_encoder's embedding table has 152064 rows"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("<|far|>"), std::string::npos) << msg;
}

TEST(TokenBounds, Qwen3VocabularyIdPastTheEmbeddingIsRefusedAtLoad) {
    // Anima's Qwen3: 263 tokenizer ids over 300 rows; one id moved past the table.
    TempDirTokenBounds d;
    const test::AnimaFiles f = test::writeTinyAnima(d.path + "/a");
    const std::string vocabPath = f.folder + "/tokenizer/vocab.json";
    auto vocab = readJsonTokenBounds(vocabPath);
    vocab["er"] = 350;
    writeJsonTokenBounds(vocabPath, vocab);
    const std::string msg = loadError(f.folder);
    EXPECT_NE(msg.find("tokenizer/vocab.json has ids up to 350 but text_encoder's embedding table "
                       "has 300 rows"),
              std::string::npos)
        << msg;
}

TEST(TokenBounds, HighestVocabularyIdSkipsStringsAndReadsTokenizerJson) {
    TempDirTokenBounds d;
    fs::create_directories(d.path + "/a");
    std::ofstream(d.path + "/a/vocab.json") << R"({"x\":99999": 3, "b": 7, "c:12345": 2, "{": 1})";
    const VocabularyIds a = highestVocabularyId(d.path + "/a");
    EXPECT_EQ(a.highest, 7);
    EXPECT_EQ(a.file, d.path + "/a/vocab.json");
    fs::create_directories(d.path + "/b");
    writeJsonTokenBounds(d.path + "/b/tokenizer.json",
                         {{"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 5}}}}},
                          {"added_tokens", {{{"id", 90}, {"content", "<x>"}}}}});
    EXPECT_EQ(highestVocabularyId(d.path + "/b").highest, 90);
    EXPECT_EQ(highestVocabularyId(d.path).highest, -1);
    EXPECT_NO_THROW(checkIdsFitEmbedding(a, 8, "text_encoder"));
    EXPECT_THROW(checkIdsFitEmbedding(a, 7, "text_encoder"), PipelineError);
}

TEST(TokenBounds, RunTimeIdsPastTheTableNeverReachTheLookup) {
    EXPECT_NO_THROW(checkTokenIds(std::vector<int>{0, 5, 999}, 1000, "text_encoder"));
    try {
        checkTokenIds(std::vector<int64_t>{1, 2, 1000}, 1000, "text_encoder_2");
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "text_encoder_2: token id 1000 (position 2) is outside its embedding table of "
                  "1000 rows");
    }
    EXPECT_THROW(checkTokenIds(std::vector<int>{-1}, 1000, "text_encoder"), InputError);
}
