#pragma once
// Reading a model's config.json: fields with defaults, clear errors naming the field, and an
// upper bound on every size, checked before anything is built ("config.json: 'num_layers' is
// 1000000000, more than 1024"). An integer that does not fit the field is an error, never a
// truncation.
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

// Thrown for a config.json field of the wrong type or value: names the field.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bounds far above every released model (FLUX.1: 3072 wide, 19 + 38 blocks; T5-XXL: 10240-wide
// feed-forward, 24 layers; SDXL: 2560 channels; Qwen-Image: 60 blocks) and low enough that a
// corrupt value fails at once instead of allocating.
constexpr int kMaxLayers = 1024;         // blocks, layers, resnets per block, levels
constexpr int kMaxWidth = 1 << 17;       // hidden sizes, channels, feed-forward widths
constexpr int kMaxHeads = 4096;          // attention heads, norm groups
constexpr int kMaxVocabulary = 1 << 24;  // token ids
constexpr int kMaxPositions = 1 << 20;   // sequence lengths, image sizes
constexpr int kMaxPatch = 64;            // patch sizes, kernel sizes
// Each factor can be within its bound and their product still absurd: 2^17 x 2^17 floats is
// 64 GB in one matrix. The largest real ones (Qwen2.5-7B's embedding: 152 064 x 3584 = 5.4e8;
// T5-XXL's 4096 x 10240) stay far below this.
constexpr int64_t kMaxMatrixElements = int64_t(1) << 31;

// An integer field in [lo, hi]; `fallback` when the field is absent or null.
int cfgInt(const nlohmann::json& j, const char* key, int fallback, int lo, int hi);
// Several: each {key, field, lo, hi} read with cfgInt, the field's value its fallback, in order.
struct IntField {
    const char* key;
    int& field;
    int lo, hi;
};
void cfgInts(const nlohmann::json& j, std::initializer_list<IntField> fields);
double cfgDouble(const nlohmann::json& j, const char* key, double fallback);
bool cfgBool(const nlohmann::json& j, const char* key, bool fallback);
std::string cfgString(const nlohmann::json& j, const char* key, const std::string& fallback);
// A list of integers, each in [lo, hi], of at most kMaxLayers entries.
std::vector<int> cfgIntList(const nlohmann::json& j, const char* key,
                            const std::vector<int>& fallback, int lo, int hi);
std::vector<std::string> cfgStringList(const nlohmann::json& j, const char* key,
                                       const std::vector<std::string>& fallback);

// Throws ConfigError("config.json: " + what) unless `ok`.
void cfgRequire(bool ok, const std::string& what);
// Throws ConfigError("config.json: 'field' what").
[[noreturn]] void cfgBadField(const std::string& field, const std::string& what);

// Throws ConfigError naming both keys, their values and `limit` unless a * b is in 1..limit:
// the size of one weight matrix (vocab x hidden, hidden x feed-forward), checked before anything
// is allocated.
void cfgRequireElements(const char* keyA, int64_t a, const char* keyB, int64_t b,
                        int64_t limit = kMaxMatrixElements);

}  // namespace hs
