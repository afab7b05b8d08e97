// QwenTokenizer::fromFolder: the files of a transformers Qwen2 tokenizer folder, read as
// Qwen2Tokenizer (vocab.json, merges.txt) or Qwen2TokenizerFast (tokenizer.json) reads them.
#include <climits>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/bounded_read.h"
#include "text/qwen_tokenizer.h"
#include "text/tokenizer_files.h"
#include "text/utf8.h"
#include "text/whitespace.h"

namespace hs {

namespace {

namespace fs = std::filesystem;
using Merges = std::vector<std::pair<std::string, std::string>>;

std::unordered_map<std::string, int> readVocabObject(const nlohmann::json& v,
                                                     const std::string& where);

// A flat {"token": id, ...} object (vocab.json), parsed without building a JSON tree: a third of
// the time nlohmann::json takes for Qwen's 151,643 entries. False on anything else (nested values,
// non-integer ids, odd escapes), and the caller falls back to nlohmann::json and its messages.
bool parseFlatVocab(std::string_view s, std::unordered_map<std::string, int>& out) {
    size_t i = 0;
    auto ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
    };
    auto hex4 = [&](uint32_t& v) {
        if (i + 4 > s.size()) return false;
        v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = s[i++];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= uint32_t(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= uint32_t(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= uint32_t(c - 'A' + 10);
            else
                return false;
        }
        return true;
    };
    std::string key;
    ws();
    if (i >= s.size() || s[i++] != '{') return false;
    ws();
    if (i < s.size() && s[i] == '}') return true;
    while (true) {
        ws();
        if (i >= s.size() || s[i++] != '"') return false;
        key.clear();
        while (true) {
            if (i >= s.size()) return false;
            const char c = s[i++];
            if (c == '"') break;
            if (uint8_t(c) < 0x20) return false;
            if (c != '\\') {
                key.push_back(c);
                continue;
            }
            if (i >= s.size()) return false;
            const char e = s[i++];
            // JSON's one-letter escapes: {the letter after '\\', the character it stands for}.
            static constexpr char kEscapes[][2] = {{'"', '"'},  {'\\', '\\'}, {'/', '/'},
                                                   {'b', '\b'}, {'f', '\f'},  {'n', '\n'},
                                                   {'r', '\r'}, {'t', '\t'}};
            if (e != 'u') {
                const char* hit = nullptr;
                for (const auto& esc : kEscapes)
                    if (esc[0] == e) hit = esc;
                if (!hit) return false;
                key.push_back(hit[1]);
                continue;
            }
            uint32_t cp;
            if (!hex4(cp)) return false;
            if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
                uint32_t lo;
                if (i + 2 > s.size() || s[i] != '\\' || s[i + 1] != 'u') return false;
                i += 2;
                if (!hex4(lo) || lo < 0xDC00 || lo >= 0xE000) return false;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return false;
            }
            appendUtf8(key, char32_t(cp));
        }
        ws();
        if (i >= s.size() || s[i++] != ':') return false;
        ws();
        const bool neg = i < s.size() && s[i] == '-';
        if (neg) ++i;
        const size_t digits = i;
        long long v = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && v <= INT_MAX)
            v = v * 10 + (s[i++] - '0');
        if (i == digits || v > INT_MAX) return false;
        out.emplace(key, int(neg ? -v : v));
        ws();
        if (i >= s.size()) return false;
        const char c = s[i++];
        if (c == '}') break;
        if (c != ',') return false;
    }
    ws();
    return i == s.size();
}

std::unordered_map<std::string, int> readVocabJson(const fs::path& p) {
    const std::string text = readTokenizerFile(p);
    std::unordered_map<std::string, int> vocab;
    vocab.reserve(text.size() / 16);
    if (parseFlatVocab(text, vocab)) {
        for (const auto& [token, id] : vocab)
            if (id < 0 || id > kMaxTokenId)
                throw TokenizerError(p.string() + ": the id of " + quoteToken(token) + " is " +
                                     std::to_string(id) + ", outside 0.." +
                                     std::to_string(kMaxTokenId));
        return vocab;
    }
    return readVocabObject(parseTokenizerJson(text, p.string()), p.string());
}

std::unordered_map<std::string, int> readVocabObject(const nlohmann::json& v,
                                                     const std::string& where) {
    if (!v.is_object()) throw TokenizerError(where + ": expected an object of token -> id");
    std::unordered_map<std::string, int> vocab;
    vocab.reserve(v.size());
    for (auto it = v.begin(); it != v.end(); ++it) {
        vocab.emplace(it.key(), tokenIdOf(it.value(), it.key(), where));
    }
    return vocab;
}

// merges.txt as Qwen2Tokenizer reads it: each line stripped, a first "#version:" line and empty
// lines skipped, the rest split on whitespace into a pair.
Merges readMergesTxt(const fs::path& p) {
    const std::string text = readTokenizerFile(p);
    Merges merges;
    merges.reserve(text.size() / 10);
    size_t lineNo = 0;
    for (size_t pos = 0; pos < text.size();) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string::npos) eol = text.size();
        const std::string_view line(text.data() + pos, eol - pos);
        pos = eol + 1;
        ++lineNo;
        // The usual line, "a b" with one space, without splitting it into a vector.
        const size_t sp = line.find(' ');
        if (sp != std::string_view::npos && sp > 0 && sp + 1 < line.size() &&
            line.find_first_of(" \t\r\f\v", sp + 1) == std::string_view::npos &&
            line.find_first_of("\t\r\f\v") == std::string_view::npos &&
            !(lineNo == 1 && line[0] == '#')) {
            merges.emplace_back(std::string(line.substr(0, sp)), std::string(line.substr(sp + 1)));
            continue;
        }
        auto parts = splitWhitespace(line);
        if (parts.empty() || (lineNo == 1 && line.rfind("#version:", 0) == 0)) continue;
        if (parts.size() != 2)
            throw TokenizerError(p.string() + " line " + std::to_string(lineNo) +
                                 ": expected two symbols separated by a space, got " +
                                 std::to_string(parts.size()));
        merges.emplace_back(std::move(parts[0]), std::move(parts[1]));
    }
    return merges;
}

// tokenizer.json's model.merges: "a b" strings (older files) or ["a", "b"] pairs (tokenizers
// >= 0.20).
Merges readJsonMerges(const nlohmann::json& m, const std::string& where) {
    if (!m.is_array()) throw TokenizerError(where + ": model.merges must be an array");
    Merges merges;
    merges.reserve(m.size());
    for (size_t i = 0; i < m.size(); ++i) {
        const auto& e = m[i];
        if (e.is_string()) {
            auto parts = splitWhitespace(e.get<std::string>());
            if (parts.size() == 2) {
                merges.emplace_back(std::move(parts[0]), std::move(parts[1]));
                continue;
            }
        } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
            merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
            continue;
        }
        throw TokenizerError(where + ": model.merges[" + std::to_string(i) +
                             "] must be \"a b\" or [\"a\", \"b\"]");
    }
    return merges;
}

// Added tokens are searched linearly when merged; Qwen's files hold a few hundred.
constexpr size_t kMaxAddedTokens = 1 << 14;

void addToken(std::vector<QwenAddedToken>& added, QwenAddedToken t) {
    if (added.size() >= kMaxAddedTokens)
        throw TokenizerError("more than " + std::to_string(kMaxAddedTokens) +
                             " added tokens: not a Qwen tokenizer");
    for (const auto& a : added)
        if (a.content == t.content) return;  // the first source that names it wins
    added.push_back(std::move(t));
}

// A boolean flag of an object, `fallback` when absent; any other type names the key.
bool flagOf(const nlohmann::json& obj, const char* key, bool fallback, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    if (!it->is_boolean())
        throw TokenizerError(where + ": '" + key + "' must be true or false, got " +
                             quoteJsonValue(*it));
    return it->get<bool>();
}

// {"151643": {"content": "<|endoftext|>", "special": true, ...}, ...}
void readAddedTokensDecoder(const nlohmann::json& j, const std::string& where,
                            std::vector<QwenAddedToken>& added) {
    if (!j.is_object()) throw TokenizerError(where + ": 'added_tokens_decoder' must be an object");
    for (auto it = j.begin(); it != j.end(); ++it) {
        const auto& v = it.value();
        int id = -1;
        try {
            size_t used = 0;
            id = it.key().size() > 9 ? -1 : std::stoi(it.key(), &used);
            if (used != it.key().size()) id = -1;
        } catch (const std::exception&) {
        }
        if (id < 0 || !v.is_object() || !v.contains("content") || !v["content"].is_string())
            throw TokenizerError(where + ": added_tokens_decoder[" + quoteToken(it.key()) +
                                 "] must map an id to {\"content\": ...}");
        // The id table is sized by the largest id: bounded as tokenIdOf bounds ids.
        if (id > kMaxTokenId)
            throw TokenizerError(where + ": added_tokens_decoder[" + quoteToken(it.key()) +
                                 "]: the id is outside 0.." + std::to_string(kMaxTokenId));
        addToken(added, {v["content"].get<std::string>(), id,
                         flagOf(v, "special", true, where + " added_tokens_decoder")});
    }
}

void readSpecials(const fs::path& p, std::string& pad, int* maxLength, PaddingSide* side,
                  std::vector<QwenAddedToken>* added) {
    if (!fs::exists(p)) return;
    const nlohmann::json j = readTokenizerJson(p);
    if (!j.is_object()) throw TokenizerError(p.string() + ": expected an object");
    readSpecialToken(j, "pad_token", pad, p);
    if (added && j.contains("added_tokens_decoder"))
        readAddedTokensDecoder(j["added_tokens_decoder"], p.string(), *added);
    if (maxLength && j.contains("model_max_length") && j["model_max_length"].is_number()) {
        // transformers writes 1e30 when the length is unset.
        const double m = j["model_max_length"].get<double>();
        if (m < 1) throw TokenizerError(p.string() + ": model_max_length must be at least 1");
        *maxLength = m >= double(INT_MAX) ? INT_MAX : int(m);
    }
    if (side && j.contains("padding_side") && j["padding_side"].is_string()) {
        const std::string s = j["padding_side"].get<std::string>();
        if (s != "left" && s != "right")
            throw TokenizerError(p.string() +
                                 ": padding_side must be \"left\" or \"right\", not \"" + s + "\"");
        *side = s == "left" ? PaddingSide::Left : PaddingSide::Right;
    }
}

}  // namespace

QwenTokenizer QwenTokenizer::fromFolder(const std::string& dir) {
    const fs::path root(dir);
    if (!fs::is_directory(root)) throw TokenizerError(dir + ": not a tokenizer folder");
    const fs::path vocabPath = root / "vocab.json", mergesPath = root / "merges.txt",
                   jsonPath = root / "tokenizer.json";
    std::unordered_map<std::string, int> vocab;
    Merges merges;
    std::vector<QwenAddedToken> added;
    bool ignoreMerges = false;
    std::string source;
    const bool haveVocab = fs::exists(vocabPath), haveMerges = fs::exists(mergesPath);
    if (haveVocab && haveMerges) {
        vocab = readVocabJson(vocabPath);
        merges = readMergesTxt(mergesPath);
        source = vocabPath.string() + " + merges.txt";
    } else if (fs::exists(jsonPath)) {
        const nlohmann::json j = readTokenizerJson(jsonPath);
        const std::string where = jsonPath.string();
        if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
            throw TokenizerError(where + ": no 'model' object");
        const auto& model = j["model"];
        if (model.contains("type") && model["type"] != "BPE")
            throw TokenizerError(where + ": model.type is " + quoteJsonValue(model["type"]) +
                                 ", expected \"BPE\"");
        if (!model.contains("vocab")) throw TokenizerError(where + ": no 'model.vocab'");
        if (!model.contains("merges")) throw TokenizerError(where + ": no 'model.merges'");
        vocab = readVocabObject(model["vocab"], where + " model.vocab");
        merges = readJsonMerges(model["merges"], where);
        ignoreMerges = flagOf(model, "ignore_merges", false, where + " model");
        if (j.contains("added_tokens")) {
            const auto& a = j["added_tokens"];
            if (!a.is_array()) throw TokenizerError(where + ": 'added_tokens' must be an array");
            for (size_t i = 0; i < a.size(); ++i) {
                const auto& t = a[i];
                if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
                    !t.contains("content") || !t["content"].is_string())
                    throw TokenizerError(where + ": added_tokens[" + std::to_string(i) +
                                         "] needs an integer 'id' and a string 'content'");
                addToken(added, {t["content"].get<std::string>(),
                                 tokenIdOf(t["id"], t["content"].get<std::string>(), where),
                                 flagOf(t, "special", true, where + " added_tokens")});
            }
        }
        source = where;
    } else if (haveVocab || haveMerges) {
        throw TokenizerError(dir + ": " + (haveVocab ? "merges.txt" : "vocab.json") +
                             " is missing (and there is no tokenizer.json)");
    } else {
        throw TokenizerError(dir + ": neither vocab.json + merges.txt nor tokenizer.json is there");
    }
    std::string pad = "<|endoftext|>";
    int maxLength = 32768;
    PaddingSide side = PaddingSide::Right;
    readSpecials(root / "tokenizer_config.json", pad, &maxLength, &side, &added);
    const fs::path addedPath = root / "added_tokens.json";
    if (fs::exists(addedPath)) {
        const nlohmann::json j = readTokenizerJson(addedPath);
        if (!j.is_object()) throw TokenizerError(addedPath.string() + ": expected an object");
        for (auto it = j.begin(); it != j.end(); ++it) {
            addToken(added, {it.key(), tokenIdOf(it.value(), it.key(), addedPath.string()), true});
        }
    }
    readSpecials(root / "special_tokens_map.json", pad, nullptr, nullptr, nullptr);
    QwenTokenizer t(std::move(vocab), merges, std::move(added), pad, maxLength, source,
                    ignoreMerges);
    t.setPaddingSide(side);
    return t;
}

}  // namespace hs
