#pragma once
// Probe points that several families' blocks share.
#include <string>

#include "numerics/probe.h"

namespace hs {

// The Op points of a resnet block (diffusers ResnetBlock2D, Wan's ResidualBlock): its two
// norm -> activation -> conv halves and its shortcut, under `path` ("<path>.norm1", ...).
struct ResnetPoints {
    ProbePoint norm1, act1, conv1, norm2, act2, conv2, shortcut;
    explicit ResnetPoints(const std::string& path)
        : norm1(path + ".norm1", ProbeLevel::Op),
          act1(path + ".act1", ProbeLevel::Op),
          conv1(path + ".conv1", ProbeLevel::Op),
          norm2(path + ".norm2", ProbeLevel::Op),
          act2(path + ".act2", ProbeLevel::Op),
          conv2(path + ".conv2", ProbeLevel::Op),
          shortcut(path + ".conv_shortcut", ProbeLevel::Op) {}
};

// a + b in the dtype that the plan gives the probe point `p` (a residual sum that the plan may
// keep in float32 while its branches run in half precision).
inline torch::Tensor addAs(const torch::Tensor& a, const torch::Tensor& b, const ProbePoint& p,
                           const ProbeContext& probes) {
    const auto dt = probes.policy().computeTypeFor(p.name);
    return a.to(dt) + b.to(dt);
}

}  // namespace hs
