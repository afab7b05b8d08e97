#pragma once
// What the golden-parity tests of every family read: config files, io tensors, and probe
// contexts for a plan.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "io/safetensors.h"
#include "models/common/named_tensors.h"
#include "numerics/precision_plan.h"
#include "numerics/probe.h"
#include "test_util.h"

namespace hs::test {

inline nlohmann::json readJson(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    return nlohmann::json::parse(in);
}

// A plan's probe context on the CPU ("" runs every component in its stored dtype).
inline ProbeContext contextFor(const std::string& plan, ProbeLevel level = ProbeLevel::Off) {
    return ProbeContext(PrecisionPlan::parse(plan), torch::kCPU, level);
}

// Every tensor of a file under the test data, by name (views into the mapped file).
inline NamedTensors readIo(const std::string& rel) {
    auto io = TensorSet::open(dataPath(rel));
    NamedTensors t;
    for (const auto& n : io.names()) t.emplace(n, io.tensor(n));
    return t;
}

}  // namespace hs::test
