#pragma once
// Reading a scheduler_config.json the way diffusers' ConfigMixin.from_config does: keys named in
// "_use_default_values" take the class's default, keys the class does not take are ignored, and
// every error names the class and the field. Options a port does not implement are refused by
// name, never ignored.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hs {

class SchedulerConfigReader {
public:
    // `cls`: the class being built, for messages ("DDIMScheduler: 'timestep_spacing' ...").
    SchedulerConfigReader(const nlohmann::json& config, std::string cls);

    const std::string& className() const { return m_cls; }
    bool has(const char* key) const;  // present, not null, not in _use_default_values
    int getInt(const char* key, int fallback, int lo, int hi) const;
    double getDouble(const char* key, double fallback) const;  // also "Infinity", "-Infinity"
    bool getBool(const char* key, bool fallback) const;
    std::string getString(const char* key, const std::string& fallback) const;
    // A string among `allowed`; ConfigError listing them otherwise.
    std::string getChoice(const char* key, const std::string& fallback,
                          const std::vector<std::string>& allowed) const;
    std::vector<double> getDoubleList(const char* key) const;  // empty when absent or null

    // ConfigError "<cls>: '<key>' = true is not supported" when the flag is set.
    void refuseTrue(const char* key) const;
    // ConfigError "<cls>: '<key>' = "<value>" is not supported (supported: ...)".
    [[noreturn]] void refuseValue(const char* key, const std::string& value,
                                  const std::string& supported) const;

    // The config with the keys of "_use_default_values" and the private keys removed.
    const nlohmann::json& effective() const { return m_json; }

private:
    [[noreturn]] void wrongType(const char* key, const char* what) const;
    nlohmann::json m_json;
    std::string m_cls;
};

// nlohmann::json::parse, tolerant of the bare NaN / Infinity / -Infinity tokens that Python's
// json module writes (diffusers saves lambda_min_clipped = -inf so): they become strings, which
// getDouble reads. Throws ConfigError naming `source` on malformed text.
nlohmann::json parseSchedulerConfigText(const std::string& text, const std::string& source);

}  // namespace hs
