#pragma once
// Bounded reading of files that come from users and the internet: every text file has a size
// cap, only regular files are read (a symlink is followed, but a FIFO, a device such as
// /dev/zero or a folder in its place is refused at once, before any read can block), and
// JSON nesting is limited before a tree is built: nlohmann allocates one node per level, so a
// 100 MB "[[[[..." would take gigabytes, and dump() of a deep value recurses. No LibTorch here.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace hs {

// Caps, by what the file holds. The largest real files seen: Qwen2's tokenizer.json ~7 MB,
// T5's spiece.model ~0.8 MB, a saved report with its images ~20 MB.
constexpr uint64_t kMaxConfigBytes = 16ull << 20;     // config.json, model_index.json, index
constexpr uint64_t kMaxTokenizerBytes = 64ull << 20;  // vocab/merges/tokenizer.json/spiece
constexpr uint64_t kMaxReportBytes = 256ull << 20;    // saved report JSON
constexpr int kMaxJsonDepth = 64;

// What a stat mode that is not a regular file is, for messages: "a folder", "a pipe (FIFO)",
// "a device", "a socket".
std::string fileKindOf(unsigned mode);

// Reads the whole file, which must be a regular file of at most `maxBytes` bytes. `what` names
// the file's role in messages ("config", "tokenizer file"). Throws FileError naming the path.
std::string readBoundedFile(const std::string& path, uint64_t maxBytes, const char* what);

// Throws std::runtime_error("JSON nested deeper than 64 levels at byte N") when `text` opens
// more than `maxDepth` arrays/objects at once. Strings (and escapes in them) are skipped. O(n).
void checkJsonDepth(const std::string& text, int maxDepth = kMaxJsonDepth);

// A parser's message cut to a few lines: nlohmann quotes the whole token it stopped in.
std::string boundedJsonError(const nlohmann::json::exception& e);

// readBoundedFile + checkJsonDepth + parse; every problem is a FileError naming the path, and
// the message quotes at most the parser's own position text, never the value.
nlohmann::json readBoundedJson(const std::string& path, uint64_t maxBytes, const char* what,
                               int maxDepth = kMaxJsonDepth);

// A value as an error message may quote it: at most `maxChars` characters (plus "..."), and
// never recursive, so a 2 MB or 64-deep value costs nothing. Numbers, booleans and null as JSON
// writes them, a string quoted and cut, a flat list of scalars as "[1, 2, 3]" (cut), any other
// list as "a list of N items", an object as "an object with N keys".
std::string quoteJsonValue(const nlohmann::json& v, size_t maxChars = 40);

}  // namespace hs
