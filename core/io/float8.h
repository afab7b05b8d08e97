#pragma once
// The two float8 formats safetensors files store (F8_E4M3, F8_E5M2), decoded to float32 through
// a 256-entry table: LibTorch 1.13 has no float8 type. Every fp8 value is exactly a float32, so
// decoding loses nothing. No LibTorch here.
//   e4m3fn: 1 sign, 4 exponent bits (bias 7), 3 mantissa bits; no Inf, NaN only at 0x7F/0xFF;
//           largest 448, subnormals 2^-6 * m/8 (smallest 2^-9).
//   e5m2:   IEEE-like: bias 15, 2 mantissa bits; Inf at 0x7C/0xFC, NaN at 0x7D-0x7F/0xFD-0xFF;
//           largest 57344, subnormals 2^-14 * m/4 (smallest 2^-16).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "io/safetensors_header.h"

namespace hs {

enum class Float8 { E4M3, E5M2 };

// The format of a stored dtype; none for the others.
std::optional<Float8> float8Of(StDType t);
// "e4m3", "e5m2": as inspect and the library show them.
const char* float8Name(Float8 f);
// A stored dtype as inspect and the library show it: "e4m3", "e5m2", "scaled e4m3" (`scaled`: a
// ComfyUI scaled-fp8 file, io/scaled_fp8.h), else its safetensors name ("BF16").
std::string storedDtypeLabel(StDType t, bool scaled);
// Whether a label of storedDtypeLabel() names a floating dtype (weights, not ids or masks).
bool isFloatingDtypeLabel(const std::string& label);

// The value of each byte, computed once on first use.
const std::array<float, 256>& float8Table(Float8 f);

// out[i] = the value of in[i], for n bytes.
void decodeFloat8(Float8 f, const uint8_t* in, float* out, size_t n);

}  // namespace hs
