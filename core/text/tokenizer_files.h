#pragma once
// Reading the files of a transformers tokenizer folder (tokenizer_config.json,
// special_tokens_map.json, vocabularies): shared by the CLIP and T5 tokenizers. Every error is a
// TokenizerError that names the file. Torch-free.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace hs {

// The bytes of `p`; TokenizerError "cannot read <p>" when it cannot be opened.
std::string readTokenizerFile(const std::filesystem::path& p);

// `p` parsed as JSON; TokenizerError "<p>: <parser message>" when it is not JSON.
nlohmann::json readTokenizerJson(const std::filesystem::path& p);

// A special token as tokenizer_config.json writes it, "text" or {"content": "text", ...}, into
// `dst`; `dst` is left alone when `key` is absent or null. `file` names the file in errors.
void readSpecialToken(const nlohmann::json& j, const char* key, std::string& dst,
                      const std::filesystem::path& file);

}  // namespace hs
