#pragma once
// SHA-256 (FIPS 180-4), for A1111's model hashes: plain C++, no library.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t size);
    // The digest as 64 lower-case hex digits; the object is spent afterwards.
    std::string hexDigest();

private:
    void block(const uint8_t* p);  // one 64-byte block into m_h

    std::array<uint32_t, 8> m_h;
    std::array<uint8_t, 64> m_buffer{};
    size_t m_buffered = 0;
    uint64_t m_bytes = 0;
};

// The SHA-256 of `size` bytes of the file at `path` from `offset` (size -1: to the end), as hex.
// Throws FileError when it cannot be read or is shorter than asked.
std::string sha256OfFile(const std::string& path, uint64_t offset = 0, int64_t size = -1);

}  // namespace hs
