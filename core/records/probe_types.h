#pragma once
// What a probe point records (see probe.h). No LibTorch.
#include <cstddef>
#include <optional>
#include <string>

#include "records/format_types.h"
#include "records/stats_types.h"

namespace hs {

enum class ProbeLevel { Off = 0, Module = 1, Layer = 2, Op = 3 };
// Short names for the blocks that give a level at every probe point they declare.
namespace probe_levels {
inline constexpr ProbeLevel kModule = ProbeLevel::Module;
inline constexpr ProbeLevel kLayer = ProbeLevel::Layer;
inline constexpr ProbeLevel kOp = ProbeLevel::Op;
}  // namespace probe_levels
std::string probeLevelName(ProbeLevel l);
std::optional<ProbeLevel> parseProbeLevel(const std::string& text);

struct ProbeRecord {
    std::string name;
    ProbeLevel granularity = ProbeLevel::Module;
    int step = -1;  // sampling step, or -1 outside the sampling loop (text encoding, decode)
    Format format = Format::FP32;
    Execution execution = Execution::Native;
    TensorStats stats;
};

struct FirstNonFinite {
    ProbeRecord at;                    // the first point whose output held NaN or Inf
    std::optional<ProbeRecord> input;  // the recorded point just before it (its input, roughly)
    size_t index = 0;                  // position in records()
};

}  // namespace hs
