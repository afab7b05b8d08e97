#include "text/tokenizer_files.h"

#include <fstream>
#include <sstream>

#include "text/clip_tokenizer.h"  // TokenizerError

namespace hs {

std::string readTokenizerFile(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw TokenizerError("cannot read " + p.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

nlohmann::json readTokenizerJson(const std::filesystem::path& p) {
    try {
        return nlohmann::json::parse(readTokenizerFile(p));
    } catch (const nlohmann::json::exception& e) {
        throw TokenizerError(p.string() + ": " + e.what());
    }
}

void readSpecialToken(const nlohmann::json& j, const char* key, std::string& dst,
                      const std::filesystem::path& file) {
    if (!j.contains(key) || j[key].is_null()) return;
    const auto& v = j[key];
    if (v.is_string())
        dst = v.get<std::string>();
    else if (v.is_object() && v.contains("content") && v["content"].is_string())
        dst = v["content"].get<std::string>();
    else
        throw TokenizerError(file.string() + ": '" + key +
                             "' must be a string or {\"content\": ...}");
}

}  // namespace hs
