#include "report/json_in.h"

#include <limits>

namespace hs::json_in {

namespace {

std::string typeWords(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null:
            return "null";
        case nlohmann::json::value_t::object:
            return "an object";
        case nlohmann::json::value_t::array:
            return "an array";
        case nlohmann::json::value_t::string:
            return "a string";
        case nlohmann::json::value_t::boolean:
            return "a boolean";
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
        case nlohmann::json::value_t::number_float:
            return "a number";
        default:
            return "something else";
    }
}

}  // namespace

void Node::fail(const std::string& what) const {
    throw ReportFormatError((m_path.empty() ? std::string("report") : m_path) + ": " + what);
}

void Node::expectObject() const {
    if (!m_j->is_object()) fail("expected an object, got " + typeWords(*m_j));
}

Node Node::operator[](const char* key) const {
    expectObject();
    auto it = m_j->find(key);
    const std::string p = m_path.empty() ? key : m_path + "." + key;
    if (it == m_j->end()) throw ReportFormatError(p + ": missing");
    return Node(*it, p);
}

bool Node::has(const char* key) const {
    expectObject();
    auto it = m_j->find(key);
    return it != m_j->end() && !it->is_null();
}

size_t Node::size() const {
    if (!m_j->is_array()) fail("expected an array, got " + typeWords(*m_j));
    return m_j->size();
}

Node Node::at(size_t i) const {
    size();
    return Node((*m_j)[i], m_path + "[" + std::to_string(i) + "]");
}

double Node::number() const {
    if (m_j->is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!m_j->is_number()) fail("expected a number, got " + typeWords(*m_j));
    return m_j->get<double>();
}

int64_t Node::integer() const {
    if (m_j->is_number_integer()) return m_j->get<int64_t>();
    if (m_j->is_number_float()) fail("expected an integer, got " + m_j->dump());
    fail("expected an integer, got " + typeWords(*m_j));
}

uint64_t Node::unsignedInteger() const {
    if (m_j->is_number_unsigned()) return m_j->get<uint64_t>();
    if (m_j->is_number_integer()) fail("expected a non-negative integer, got " + m_j->dump());
    return uint64_t(integer());
}

int Node::intValue() const {
    const int64_t v = integer();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
        fail("integer " + std::to_string(v) + " out of range");
    return int(v);
}

bool Node::boolean() const {
    if (!m_j->is_boolean()) fail("expected true or false, got " + typeWords(*m_j));
    return m_j->get<bool>();
}

std::string Node::string() const {
    if (!m_j->is_string()) fail("expected a string, got " + typeWords(*m_j));
    return m_j->get<std::string>();
}

}  // namespace hs::json_in
