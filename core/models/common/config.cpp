#include "models/common/config.h"

#include <cstdint>

#include "io/bounded_read.h"

namespace hs {

namespace {

// A value in an error message: short and never recursive, whatever the file holds.
std::string shown(const nlohmann::json& v) {
    return quoteJsonValue(v);
}

[[noreturn]] void wrongType(const char* key, const char* what, const nlohmann::json& v) {
    throw ConfigError(std::string("config.json: '") + key + "' must be " + what + ", got " +
                      shown(v));
}

int boundedInt(const nlohmann::json& v, const char* key, int lo, int hi, const char* what) {
    if (!v.is_number_integer()) wrongType(key, what, v);
    // nlohmann stores every non-negative integer as unsigned: compare those against both bounds
    // too (0 must fail a lower bound of 1), without narrowing one past INT64_MAX.
    const bool outside = v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t(int64_t(hi)) ||
                                                      int64_t(v.get<uint64_t>()) < lo
                                                : v.get<int64_t>() > hi || v.get<int64_t>() < lo;
    if (outside)
        throw ConfigError(std::string("config.json: '") + key + "' is " + shown(v) + ", outside " +
                          std::to_string(lo) + ".." + std::to_string(hi));
    return int(v.get<int64_t>());
}

}  // namespace

int cfgInt(const nlohmann::json& j, const char* key, int fallback, int lo, int hi) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    return boundedInt(j[key], key, lo, hi, "an integer");
}

void cfgInts(const nlohmann::json& j, std::initializer_list<IntField> fields) {
    for (const IntField& f : fields) f.field = cfgInt(j, f.key, f.field, f.lo, f.hi);
}

double cfgDouble(const nlohmann::json& j, const char* key, double fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_number()) wrongType(key, "a number", v);
    return v.get<double>();
}

bool cfgBool(const nlohmann::json& j, const char* key, bool fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_boolean()) wrongType(key, "true or false", v);
    return v.get<bool>();
}

namespace {

// Config strings are names ("silu", "FluxTransformer2DModel"); messages quote them whole.
constexpr size_t kMaxConfigString = 1024;

std::string boundedString(const nlohmann::json& v, const char* key) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > kMaxConfigString)
        throw ConfigError(std::string("config.json: '") + key + "' is a string of " +
                          std::to_string(s.size()) + " bytes (" + shown(v) + "), more than " +
                          std::to_string(kMaxConfigString));
    return s;
}

}  // namespace

std::string cfgString(const nlohmann::json& j, const char* key, const std::string& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_string()) wrongType(key, "a string", v);
    return boundedString(v, key);
}

std::vector<int> cfgIntList(const nlohmann::json& j, const char* key,
                            const std::vector<int>& fallback, int lo, int hi) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_array()) wrongType(key, "a list of integers", v);
    if (v.size() > size_t(kMaxLayers))
        throw ConfigError(std::string("config.json: '") + key + "' has " +
                          std::to_string(v.size()) + " entries, more than " +
                          std::to_string(kMaxLayers));
    std::vector<int> out;
    for (const auto& e : v) out.push_back(boundedInt(e, key, lo, hi, "a list of integers"));
    return out;
}

std::vector<std::string> cfgStringList(const nlohmann::json& j, const char* key,
                                       const std::vector<std::string>& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_array()) wrongType(key, "a list of strings", v);
    if (v.size() > size_t(kMaxLayers))
        throw ConfigError(std::string("config.json: '") + key + "' has " +
                          std::to_string(v.size()) + " entries, more than " +
                          std::to_string(kMaxLayers));
    std::vector<std::string> out;
    for (const auto& e : v) {
        if (!e.is_string()) wrongType(key, "a list of strings", v);
        out.push_back(boundedString(e, key));
    }
    return out;
}

[[noreturn]] void cfgBadField(const std::string& field, const std::string& what) {
    throw ConfigError("config.json: '" + field + "' " + what);
}

void cfgRequire(bool ok, const std::string& what) {
    if (!ok) throw ConfigError("config.json: " + what);
}

void cfgRequireElements(const char* keyA, int64_t a, const char* keyB, int64_t b, int64_t limit) {
    // Both factors are bounded ints, so the product fits in 64 bits.
    if (a > 0 && b > 0 && a * b <= limit) return;
    throw ConfigError(std::string("config.json: '") + keyA + "' (" + std::to_string(a) + ") x '" +
                      keyB + "' (" + std::to_string(b) + ") is " + std::to_string(a * b) +
                      ", more than " + std::to_string(limit) +
                      " (one weight matrix that large is not a real model)");
}

}  // namespace hs
