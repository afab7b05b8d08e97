#pragma once
// Standard base64 (RFC 4648, with '=' padding), for PNGs and float arrays inside JSON and HTML.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

std::string base64Encode(const uint8_t* data, size_t n);
inline std::string base64Encode(const std::vector<uint8_t>& v) {
    return base64Encode(v.data(), v.size());
}
// Throws std::invalid_argument naming the first bad character or a wrong length. Whitespace
// is not accepted: the writers never produce it.
std::vector<uint8_t> base64Decode(const std::string& text);

}  // namespace hs
