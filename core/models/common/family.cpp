#include "models/common/family.h"

namespace hs {

namespace {

[[noreturn]] void wrongType(const char* key, const char* what, const nlohmann::json& v) {
    throw ConfigError(std::string("config.json: '") + key + "' must be " + what + ", got " +
                      v.dump());
}

}  // namespace

int cfgInt(const nlohmann::json& j, const char* key, int fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_number_integer()) wrongType(key, "an integer", v);
    return v.get<int>();
}

int cfgIntRequired(const nlohmann::json& j, const char* key) {
    if (!j.contains(key)) throw ConfigError(std::string("config.json: missing '") + key + "'");
    return cfgInt(j, key, 0);
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

std::string cfgString(const nlohmann::json& j, const char* key, const std::string& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_string()) wrongType(key, "a string", v);
    return v.get<std::string>();
}

std::vector<int> cfgIntList(const nlohmann::json& j, const char* key,
                            const std::vector<int>& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_array()) wrongType(key, "a list of integers", v);
    std::vector<int> out;
    for (const auto& e : v) {
        if (!e.is_number_integer()) wrongType(key, "a list of integers", v);
        out.push_back(e.get<int>());
    }
    return out;
}

std::vector<std::string> cfgStringList(const nlohmann::json& j, const char* key,
                                       const std::vector<std::string>& fallback) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (!v.is_array()) wrongType(key, "a list of strings", v);
    std::vector<std::string> out;
    for (const auto& e : v) {
        if (!e.is_string()) wrongType(key, "a list of strings", v);
        out.push_back(e.get<std::string>());
    }
    return out;
}

}  // namespace hs
