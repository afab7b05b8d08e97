#pragma once
// What every model family offers the pipeline and `halfscope-cli run-module`.
#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "models/common/weights.h"
#include "numerics/probe.h"

namespace hs {

// Tensors by the key names of the golden files: inputs "in.*", outputs "out.*".
using NamedTensors = std::map<std::string, torch::Tensor>;

// Thrown for a missing or mis-shaped input: names the key and the expected shape.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Thrown for a config.json field of the wrong type or value: names the field.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads config fields with defaults and clear errors ("config.json: 'hidden_size' must be an
// integer, got \"abc\"").
int cfgInt(const nlohmann::json& j, const char* key, int fallback);
int cfgIntRequired(const nlohmann::json& j, const char* key);
double cfgDouble(const nlohmann::json& j, const char* key, double fallback);
bool cfgBool(const nlohmann::json& j, const char* key, bool fallback);
std::string cfgString(const nlohmann::json& j, const char* key, const std::string& fallback);
std::vector<int> cfgIntList(const nlohmann::json& j, const char* key, const std::vector<int>& fallback);
std::vector<std::string> cfgStringList(const nlohmann::json& j, const char* key,
                                       const std::vector<std::string>& fallback);

}  // namespace hs
