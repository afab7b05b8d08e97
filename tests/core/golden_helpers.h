#pragma once
// What the golden-parity tests of every family read: config files, io tensors, and probe
// contexts for a plan.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "models/common/named_tensors.h"
#include "models/common/weights.h"
#include "records/precision_plan.h"
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

// The names of `m`'s tensors.
inline std::set<std::string> keysOf(const WeightMap& m) {
    std::set<std::string> k;
    for (const auto& kv : m) k.insert(kv.first);
    return k;
}

// Relative error of output `key` against the io file's, printed with `label`; 1 when the shapes
// differ (which also fails the test).
inline double compareOutput(const NamedTensors& out, const NamedTensors& io, const std::string& key,
                            const std::string& label) {
    const auto& got = out.at(key);
    const auto& ref = io.at(key);
    EXPECT_EQ(got.sizes(), ref.sizes()) << label;
    EXPECT_EQ(got.scalar_type(), torch::kFloat) << label;
    if (got.sizes() != ref.sizes()) return 1.0;
    const double err = relErr(got, ref);
    std::printf("  %-40s rel err %.3e (max |ref| %.3f)\n", label.c_str(), err,
                ref.abs().max().item<double>());
    return err;
}

// `f` throws an E whose message holds every one of `needles`.
template <class E>
void expectThrowNaming(const std::function<void()>& f, const std::vector<std::string>& needles) {
    try {
        f();
        ADD_FAILURE() << "nothing thrown for " << needles.front();
    } catch (const E& e) {
        for (const auto& n : needles)
            EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
}

}  // namespace hs::test
