#pragma once
// An enum's names as one table of {value, name} rows: the name a record, a report or a
// command line uses for a value, and the value a name stands for; likewise one table of pairs
// maps two enums onto each other both ways. One table keeps both directions in step.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace hs {

template <class E>
struct EnumName {
    E value;
    const char* name;
};

// The name of `v` in `table`, or `fallback` for a value the table lacks.
template <class E, std::size_t N>
std::string nameIn(const EnumName<E> (&table)[N], E v, const char* fallback = "?") {
    for (const auto& row : table)
        if (row.value == v) return row.name;
    return fallback;
}

// The value whose name is exactly `name` (case-sensitive), or nullopt.
template <class E, std::size_t N>
std::optional<E> valueNamed(const EnumName<E> (&table)[N], const std::string& name) {
    for (const auto& row : table)
        if (name == row.name) return row.value;
    return std::nullopt;
}

// One table of {a, b} pairs read either way: the b paired with `a`, the a paired with `b`
// (a format and its LibTorch dtype, ...), or nullopt.
template <class A, class B, std::size_t N>
std::optional<B> secondOf(const std::pair<A, B> (&table)[N], A a) {
    for (const auto& row : table)
        if (row.first == a) return row.second;
    return std::nullopt;
}

template <class A, class B, std::size_t N>
std::optional<A> firstOf(const std::pair<A, B> (&table)[N], B b) {
    for (const auto& row : table)
        if (row.second == b) return row.first;
    return std::nullopt;
}

}  // namespace hs
