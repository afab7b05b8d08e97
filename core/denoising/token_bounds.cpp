#include "denoising/token_bounds.h"

#include <algorithm>
#include <filesystem>

#include "base/pipeline_error.h"
#include "io/bounded_read.h"
#include "models/common/named_tensors.h"  // InputError
#include "text/qwen_tokenizer.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

// The largest integer value of a flat {"token": id, ...} object, read without building a tree
// (Qwen2's vocab.json has 151 643 entries): strings are skipped with their escapes, and only
// numbers right after a ':' one level deep are values. -1 when there is none.
int64_t highestFlatValue(const std::string& text) {
    int64_t best = -1;
    int depth = 0;
    bool afterColon = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
            afterColon = false;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == ':') {
            afterColon = depth == 1;
        } else if (afterColon && (c == '-' || (c >= '0' && c <= '9'))) {
            int64_t v = 0;
            const bool negative = c == '-';
            size_t j = negative ? i + 1 : i;
            for (; j < text.size() && text[j] >= '0' && text[j] <= '9'; ++j)
                v = std::min<int64_t>(v * 10 + (text[j] - '0'), int64_t(1) << 40);
            if (!negative) best = std::max(best, v);
            i = j - 1;
            afterColon = false;
        }
    }
    return best;
}

int64_t highestInTokenizerJson(const nlohmann::json& j) {
    int64_t best = -1;
    if (j.is_object() && j.contains("model") && j["model"].is_object() &&
        j["model"].contains("vocab") && j["model"]["vocab"].is_object())
        for (const auto& v : j["model"]["vocab"])
            if (v.is_number_integer()) best = std::max(best, v.get<int64_t>());
    if (j.is_object() && j.contains("added_tokens") && j["added_tokens"].is_array())
        for (const auto& t : j["added_tokens"])
            if (t.is_object() && t.contains("id") && t["id"].is_number_integer())
                best = std::max(best, t["id"].get<int64_t>());
    return best;
}

void checkRange(int64_t id, size_t position, int64_t rows, const std::string& encoderSlot) {
    if (id >= 0 && (rows < 0 || id < rows)) return;
    throw InputError(encoderSlot + ": token id " + std::to_string(id) + " (position " +
                     std::to_string(position) + ") is outside its embedding table of " +
                     std::to_string(rows) + " rows");
}

}  // namespace

VocabularyIds highestVocabularyId(const std::string& dir) {
    VocabularyIds out;
    const fs::path vocab = fs::path(dir) / "vocab.json", json = fs::path(dir) / "tokenizer.json";
    if (fs::exists(vocab)) {
        out.file = vocab.string();
        out.highest =
            highestFlatValue(readBoundedFile(out.file, kMaxTokenizerBytes, "tokenizer vocabulary"));
    } else if (fs::exists(json)) {
        out.file = json.string();
        out.highest =
            highestInTokenizerJson(readBoundedJson(out.file, kMaxTokenizerBytes, "tokenizer file"));
    }
    return out;
}

void checkIdsFitEmbedding(const VocabularyIds& ids, int64_t rows, const std::string& encoderSlot) {
    if (rows < 0 || ids.highest < rows) return;
    throw PipelineError(ids.file + " has ids up to " + std::to_string(ids.highest) + " but " +
                        encoderSlot + "'s embedding table has " + std::to_string(rows) +
                        " rows (vocab_size): the tokenizer and the text encoder are not a pair");
}

void checkTokenizerSize(const std::string& where, const std::string& tokenizer,
                        const std::string& dir, size_t ids, int64_t rows,
                        const std::string& encoderSlot) {
    if (rows <= 0 || ids <= size_t(rows)) return;
    throw PipelineError(where + ": the " + tokenizer + " (" + dir + ") has " +
                        std::to_string(int64_t(ids)) + " ids but " + encoderSlot + " embeds only " +
                        std::to_string(rows) + " (vocab_size): they are not a pair");
}

void checkQwenTokenizerFits(const QwenTokenizer& tokenizer, const std::string& dir,
                            TextEncoderComponent* encoder, const std::string& encoderSlot) {
    const int64_t rows = encoder ? encoder->tokenTable().rows : -1;
    if (rows < 0) return;
    VocabularyIds ids = highestVocabularyId(dir);
    for (const auto& t : tokenizer.addedTokens())
        if (t.id > ids.highest) {
            ids.highest = t.id;
            ids.file = dir + " (added token \"" + t.content.substr(0, 40) + "\")";
        }
    checkIdsFitEmbedding(ids, rows, encoderSlot);
}

void checkTokenIds(const std::vector<int>& ids, int64_t rows, const std::string& encoderSlot) {
    for (size_t i = 0; i < ids.size(); ++i) checkRange(ids[i], i, rows, encoderSlot);
}

void checkTokenIds(const std::vector<int64_t>& ids, int64_t rows, const std::string& encoderSlot) {
    for (size_t i = 0; i < ids.size(); ++i) checkRange(ids[i], i, rows, encoderSlot);
}

}  // namespace hs
