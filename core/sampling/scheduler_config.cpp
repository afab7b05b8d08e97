#include "sampling/scheduler_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "io/bounded_read.h"
#include "models/common/config.h"

namespace hs {

namespace {

// A value in a message: short and never recursive, whatever the file holds.
std::string shown(const nlohmann::json& v) {
    return quoteJsonValue(v);
}

}  // namespace

SchedulerConfigReader::SchedulerConfigReader(const nlohmann::json& config, std::string cls)
    : m_cls(std::move(cls)) {
    if (!config.is_object())
        throw ConfigError(m_cls + ": the scheduler config must be a JSON object, got " +
                          shown(config));
    // A set: a hostile file with a million keys and a million defaults stays linear.
    std::unordered_set<std::string> defaults;
    if (config.contains("_use_default_values") && config["_use_default_values"].is_array())
        for (const auto& k : config["_use_default_values"])
            if (k.is_string()) defaults.insert(k.get<std::string>());
    m_json = nlohmann::json::object();
    for (const auto& kv : config.items()) {
        if (!kv.key().empty() && kv.key()[0] == '_') continue;
        if (defaults.count(kv.key())) continue;
        m_json[kv.key()] = kv.value();
    }
}

bool SchedulerConfigReader::has(const char* key) const {
    return m_json.contains(key) && !m_json[key].is_null();
}

void SchedulerConfigReader::wrongType(const char* key, const char* what) const {
    throw ConfigError(m_cls + ": '" + key + "' must be " + what + ", got " + shown(m_json[key]));
}

int SchedulerConfigReader::getInt(const char* key, int fallback, int lo, int hi) const {
    if (!has(key)) return fallback;
    const auto& v = m_json[key];
    // Python writes 1000.0 for a float that holds an integer; diffusers uses it as is.
    if (!v.is_number()) wrongType(key, "an integer");
    if (v.is_number_float() && std::floor(v.get<double>()) != v.get<double>())
        wrongType(key, "an integer");
    const double d = v.get<double>();
    if (d < lo || d > hi)
        throw ConfigError(m_cls + ": '" + key + "' is " + shown(v) + ", outside " +
                          std::to_string(lo) + ".." + std::to_string(hi));
    return int(d);
}

double SchedulerConfigReader::getDouble(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const auto& v = m_json[key];
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        if (s == "Infinity") return std::numeric_limits<double>::infinity();
        if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
        if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    }
    wrongType(key, "a number");
}

bool SchedulerConfigReader::getBool(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const auto& v = m_json[key];
    if (!v.is_boolean()) wrongType(key, "true or false");
    return v.get<bool>();
}

std::string SchedulerConfigReader::getString(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const auto& v = m_json[key];
    if (!v.is_string()) wrongType(key, "a string");
    // Scheduler strings are names ("epsilon", "linspace"); messages quote them whole.
    constexpr size_t kMaxString = 1024;
    if (v.get_ref<const std::string&>().size() > kMaxString)
        throw ConfigError(m_cls + ": '" + key + "' is a string of " +
                          std::to_string(v.get_ref<const std::string&>().size()) + " bytes (" +
                          shown(v) + "), more than " + std::to_string(kMaxString));
    return v.get<std::string>();
}

std::string SchedulerConfigReader::getChoice(const char* key, const std::string& fallback,
                                             const std::vector<std::string>& allowed) const {
    const std::string s = getString(key, fallback);
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    throw ConfigError(m_cls + ": '" + key + "' must be one of " + list + ", got \"" + s + "\"");
}

std::vector<double> SchedulerConfigReader::getDoubleList(const char* key) const {
    if (!has(key)) return {};
    const auto& v = m_json[key];
    if (!v.is_array()) wrongType(key, "a list of numbers");
    std::vector<double> out;
    for (const auto& e : v) {
        if (!e.is_number()) wrongType(key, "a list of numbers");
        out.push_back(e.get<double>());
    }
    return out;
}

void SchedulerConfigReader::refuseTrue(const char* key) const {
    if (getBool(key, false))
        throw ConfigError(m_cls + ": '" + key + "' = true is not supported by Halfscope's " +
                          m_cls);
}

void SchedulerConfigReader::refuseValue(const char* key, const std::string& value,
                                        const std::string& supported) const {
    throw ConfigError(m_cls + ": '" + key + "' = \"" + value +
                      "\" is not supported by Halfscope's " + m_cls + " (supported: " + supported +
                      ")");
}

nlohmann::json parseSchedulerConfigText(const std::string& text, const std::string& source) {
    // Quote bare NaN / Infinity / -Infinity outside strings.
    std::string out;
    out.reserve(text.size() + 16);
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') inString = true;
        bool replaced = false;
        for (const char* tok : {"-Infinity", "Infinity", "NaN"}) {
            const std::string t(tok);
            if (text.compare(i, t.size(), t) == 0) {
                out += "\"" + t + "\"";
                i += t.size() - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += c;
    }
    try {
        checkJsonDepth(out);
        return nlohmann::json::parse(out);
    } catch (const nlohmann::json::exception& e) {
        throw ConfigError(source + ": not valid JSON (" + boundedJsonError(e) + ")");
    } catch (const std::runtime_error& e) {  // nested too deep
        throw ConfigError(source + ": not valid JSON (" + e.what() + ")");
    }
}

}  // namespace hs
