#pragma once
// What the golden-parity tests of every family read: config files, io tensors, and probe
// contexts for a plan.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "models/common/named_tensors.h"
#include "models/common/weights.h"
#include "models/opened_component.h"
#include "numerics/probe.h"
#include "records/precision_plan.h"
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

// A model of the test data: its family's class, its config and weights, and the io tensors it is
// checked against (in.* inputs, out.* references).
struct ModelCase {
    std::string className;
    nlohmann::json config;
    WeightMap weights;
    NamedTensors io;
};

// The component folder `folder` (config.json + weights) and the io file `io`, both under the
// test data. `copy`: the weights and io copied out of the mapped files.
inline ModelCase openCase(const std::string& folder, const std::string& io, bool copy = false) {
    OpenedComponent opened = openFolderComponent(dataPath(folder));
    ModelCase c;
    c.className = opened.className;
    c.config = std::move(opened.source.config);
    for (auto& kv : opened.source.weights)
        c.weights.emplace(kv.first, copy ? kv.second.clone() : kv.second);
    for (auto& kv : readIo(io)) c.io.emplace(kv.first, copy ? kv.second.clone() : kv.second);
    return c;
}

// The in.* tensors of an io set.
inline NamedTensors onlyInputs(const NamedTensors& io) {
    NamedTensors in;
    for (const auto& kv : io)
        if (kv.first.rfind("in.", 0) == 0) in.emplace(kv);
    return in;
}

// A VAE (`scaled`) whose decoder.up_blocks.1.resnets.0.conv2 is scaled past fp16's range,
// decoding `inputs` (its in.z) through its family: finite in fp32, that block's resnet past 65504;
// in fp16 (emulated) the block is the first non-finite point at Module level, the conv at Op
// level. Returns the Module level's first non-finite point.
inline std::optional<FirstNonFinite> expectTheScaledDecoderBlockOverflowsFp16(
    const ModelCase& scaled, const NamedTensors& inputs) {
    const auto family = FamilyRegistry::global().require(scaled.className, "test");
    auto decode = [&](ProbeContext& probes) {
        loadComponent(*family, {"test", scaled.config, scaled.weights}, probes.policy(), "vae")
            ->run(inputs, probes);
    };
    ProbeContext p32 = contextFor("", ProbeLevel::Layer);
    decode(p32);
    EXPECT_FALSE(p32.firstNonFinite().has_value()) << "fp32 must stay finite";
    bool over = false;
    for (const auto& r : p32.records())
        if (r.name == "vae.decoder.up_blocks.1.resnets.0") over = r.stats.overFp16 > 0;
    EXPECT_TRUE(over) << "the scaled block must exceed 65504 in fp32";

    // In fp16 (emulated): the first non-finite point at `level`.
    auto firstAt = [&](ProbeLevel level) {
        ProbeContext p = contextFor("vae=fp16", level);
        decode(p);
        EXPECT_TRUE(p.firstNonFinite().has_value()) << probeLevelName(level);
        return p.firstNonFinite();
    };
    const std::optional<FirstNonFinite> block = firstAt(ProbeLevel::Module);
    if (block) {
        EXPECT_EQ(block->at.name, "vae.decoder.up_blocks.1");
        EXPECT_EQ(block->at.execution, Execution::Emulated);
    }
    const std::optional<FirstNonFinite> conv = firstAt(ProbeLevel::Op);
    if (conv) {
        EXPECT_EQ(conv->at.name, "vae.decoder.up_blocks.1.resnets.0.conv2");
        EXPECT_EQ(conv->at.format, Format::FP16);
    }
    return block;
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
