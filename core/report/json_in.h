#pragma once
// Reading JSON with the key path kept, so that every error names where it is:
//   "runs[0].record.steps[3].latent.min: expected a number, got a string".
// Internal to the report reader. Non-finite numbers are written as null; number() reads null
// back as NaN.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "report/report_types.h"

namespace hs::json_in {

class Node {
public:
    Node(const nlohmann::json& j, std::string path) : m_j(&j), m_path(std::move(path)) {}

    Node operator[](const char* key) const;  // required key
    bool has(const char* key) const;         // present and not null
    Node at(size_t i) const;
    size_t size() const;  // of an array

    double number() const;  // null -> NaN
    int64_t integer() const;
    uint64_t unsignedInteger() const;
    int intValue() const;
    bool boolean() const;
    std::string string() const;

    const nlohmann::json& raw() const { return *m_j; }
    const std::string& path() const { return m_path; }
    [[noreturn]] void fail(const std::string& what) const;

private:
    void expectObject() const;
    const nlohmann::json* m_j;
    std::string m_path;
};

// The writing side of that convention: a finite number, or null.
inline nlohmann::ordered_json numberOrNull(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace hs::json_in
