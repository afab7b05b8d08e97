#pragma once
// A tokenizer file's line split at ASCII whitespace (merges.txt), as Python's str.split() splits
// ASCII text.
#include <string>
#include <string_view>
#include <vector>

namespace hs {

inline bool isSpaceByte(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

inline std::vector<std::string> splitWhitespace(std::string_view line) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpaceByte(line[i])) ++i;
        size_t j = i;
        while (j < line.size() && !isSpaceByte(line[j])) ++j;
        if (j > i) parts.emplace_back(line.substr(i, j - i));
        i = j;
    }
    return parts;
}

}  // namespace hs
