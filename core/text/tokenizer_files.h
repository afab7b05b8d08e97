#pragma once
// Reading the files of a transformers tokenizer folder (tokenizer_config.json,
// special_tokens_map.json, vocabularies): shared by the CLIP and T5 tokenizers. Every error is a
// TokenizerError that names the file. Torch-free.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace hs {

// The bytes of `p`, a regular file of at most kMaxTokenizerBytes (io/bounded_read.h);
// TokenizerError "cannot read <p>: <why>" when it cannot be opened, is a FIFO, a device or a
// folder, or is larger.
std::string readTokenizerFile(const std::filesystem::path& p);

// `text` parsed as JSON, nested at most kMaxJsonDepth levels; TokenizerError "<where>: <parser
// message, cut short>" when it is not.
nlohmann::json parseTokenizerJson(const std::string& text, const std::string& where);

// readTokenizerFile + parseTokenizerJson.
nlohmann::json readTokenizerJson(const std::filesystem::path& p);

// Token ids index an embedding table: 0..2^24 (far above Qwen's 151 936 or CLIP's 49 408).
constexpr int64_t kMaxTokenId = 1 << 24;

// The id `v` given to `token` in `where`: an integer in 0..kMaxTokenId, never truncated;
// TokenizerError naming the token (cut short) otherwise.
int tokenIdOf(const nlohmann::json& v, const std::string& token, const std::string& where);

// A token or key from a file, quoted for a message: '...' with at most 40 bytes of it.
std::string quoteToken(const std::string& s);

// A special token as tokenizer_config.json writes it, "text" or {"content": "text", ...}, into
// `dst`; `dst` is left alone when `key` is absent or null. `file` names the file in errors.
void readSpecialToken(const nlohmann::json& j, const char* key, std::string& dst,
                      const std::filesystem::path& file);

}  // namespace hs
