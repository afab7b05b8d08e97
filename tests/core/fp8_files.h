#pragma once
// fp8 safetensors written by hand for the tests: any dtype name (F8_E4M3, F8_E5M2) with raw
// bytes, and the fp8 code nearest to a value (ties to the even code, as rounding does).
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/float8.h"
#include "test_util.h"

namespace hs::test {

// One tensor of a hand-written safetensors file.
struct RawTensor {
    std::string name, dtype;
    std::vector<int64_t> shape;
    std::string bytes;
};

inline std::string bytesOf(const torch::Tensor& t) {
    const torch::Tensor c = t.contiguous();
    return std::string(static_cast<const char*>(c.data_ptr()), size_t(c.nbytes()));
}

inline RawTensor rawOf(const std::string& name, const torch::Tensor& t) {
    const char* dtype = t.scalar_type() == torch::kFloat32 ? "F32" : "I64";
    return {name, dtype, t.sizes().vec(), bytesOf(t)};
}

// Writes the tensors (any dtype name, F8 included) as safetensors, `truncate` bytes short.
inline std::string writeRaw(const std::string& path, const std::vector<RawTensor>& tensors,
                            size_t truncate = 0) {
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const auto& t : tensors) {
        header[t.name] = {{"dtype", t.dtype},
                          {"shape", t.shape},
                          {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
        data += t.bytes;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i) file[size_t(i)] = char(uint64_t(text.size()) >> (8 * i));
    file += text + data;
    file.resize(file.size() - truncate);
    test::writeTextFile(path, file);
    return path;
}

// The fp8 code nearest to `v` (finite codes only; on a tie the even code, whose mantissa
// ends in 0).
inline uint8_t nearestCode(Float8 f, float v) {
    const auto& table = float8Table(f);
    int best = 0;
    for (int b = 1; b < 256; ++b)
        if (std::isfinite(table[size_t(b)])) {
            const float d = std::fabs(table[size_t(b)] - v), e = std::fabs(table[size_t(best)] - v);
            if (d < e || (d == e && (best & 1) && !(b & 1))) best = b;
        }
    return uint8_t(best);
}

}  // namespace hs::test
