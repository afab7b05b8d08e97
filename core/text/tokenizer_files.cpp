#include "text/tokenizer_files.h"

#include "io/bounded_read.h"
#include "io/safetensors_header.h"  // FileError
#include "text/clip_tokenizer.h"    // TokenizerError

namespace hs {

std::string readTokenizerFile(const std::filesystem::path& p) {
    // Bounded: a regular file (a FIFO, a device or a folder is refused before any read) of at
    // most kMaxTokenizerBytes. FileError's message names the path.
    try {
        return readBoundedFile(p.string(), kMaxTokenizerBytes, "tokenizer file");
    } catch (const FileError& e) {
        throw TokenizerError(std::string("cannot read ") + e.what());
    }
}

nlohmann::json parseTokenizerJson(const std::string& text, const std::string& where) {
    try {
        checkJsonDepth(text);
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw TokenizerError(where + ": " + boundedJsonError(e));
    } catch (const std::runtime_error& e) {  // checkJsonDepth
        throw TokenizerError(where + ": " + e.what());
    }
}

nlohmann::json readTokenizerJson(const std::filesystem::path& p) {
    return parseTokenizerJson(readTokenizerFile(p), p.string());
}

std::string quoteToken(const std::string& s) {
    constexpr size_t kMax = 40;
    if (s.size() <= kMax) return "'" + s + "'";
    size_t n = kMax;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // whole UTF-8 chars
    return "'" + s.substr(0, n) + "...' (" + std::to_string(s.size()) + " bytes)";
}

int tokenIdOf(const nlohmann::json& v, const std::string& token, const std::string& where) {
    if (!v.is_number_integer())
        throw TokenizerError(where + ": the id of " + quoteToken(token) + " is not an integer");
    const bool ok = v.is_number_unsigned()
                        ? v.get<uint64_t>() <= uint64_t(kMaxTokenId)
                        : v.get<int64_t>() >= 0 && v.get<int64_t>() <= kMaxTokenId;
    if (!ok)
        throw TokenizerError(where + ": the id of " + quoteToken(token) + " is " + v.dump() +
                             ", outside 0.." + std::to_string(kMaxTokenId));
    return int(v.get<int64_t>());
}

void readSpecialToken(const nlohmann::json& j, const char* key, std::string& dst,
                      const std::filesystem::path& file) {
    if (!j.contains(key) || j[key].is_null()) return;
    const auto& v = j[key];
    std::string token;
    if (v.is_string())
        token = v.get<std::string>();
    else if (v.is_object() && v.contains("content") && v["content"].is_string())
        token = v["content"].get<std::string>();
    else
        throw TokenizerError(file.string() + ": '" + key +
                             "' must be a string or {\"content\": ...}, got " + quoteJsonValue(v));
    // Special tokens are short ("<|endoftext|>"); later messages quote them whole.
    constexpr size_t kMaxSpecialToken = 1024;
    if (token.size() > kMaxSpecialToken)
        throw TokenizerError(file.string() + ": '" + key + "' is " + quoteToken(token) +
                             ", longer than " + std::to_string(kMaxSpecialToken) + " bytes");
    dst = std::move(token);
}

}  // namespace hs
