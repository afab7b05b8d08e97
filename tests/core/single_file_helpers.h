#pragma once
// Shared by the single-file tests: writing checkpoints in other layouts, running a converted
// component through its family, comparing weight maps.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "models/registry.h"
#include "models/single_file.h"
#include "test_util.h"

namespace hs::test {

// A temporary directory removed with its files at the end of the scope.
struct ScopedDir {
    explicit ScopedDir(const std::string& tag) : path(tempDir(tag)) {}
    ~ScopedDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    ScopedDir(const ScopedDir&) = delete;
    ScopedDir& operator=(const ScopedDir&) = delete;
    const std::string path;
};

inline nlohmann::json readJsonAt(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << path;
    return nlohmann::json::parse(in);
}

inline WeightMap openWeights(const std::string& path) {
    return weightMapOf(TensorSet::open(path));
}

inline NamedTensors openTensors(const std::string& path) {
    NamedTensors t;
    for (auto& kv : openWeights(path)) t.emplace(kv.first, kv.second);
    return t;
}

// Writes `w` (each key prefixed with `prefix`) to `dir/name` and returns the path.
inline std::string writeWeights(const std::string& dir, const std::string& name, const WeightMap& w,
                                const std::string& prefix = "") {
    std::vector<std::pair<std::string, torch::Tensor>> list;
    for (const auto& kv : w) list.emplace_back(prefix + kv.first, kv.second);
    const std::string path = dir + "/" + name;
    writeSafetensors(path, list);
    return path;
}

inline std::set<std::string> keySet(const WeightMap& m) {
    std::set<std::string> k;
    for (const auto& kv : m) k.insert(kv.first);
    return k;
}

// Same keys, and every tensor equal in shape, dtype and value.
inline void expectSameWeights(const WeightMap& got, const WeightMap& want) {
    EXPECT_EQ(keySet(got), keySet(want));
    for (const auto& kv : want) {
        auto it = got.find(kv.first);
        if (it == got.end()) continue;
        EXPECT_EQ(it->second.sizes(), kv.second.sizes()) << kv.first;
        EXPECT_EQ(it->second.scalar_type(), kv.second.scalar_type()) << kv.first;
        if (it->second.sizes() == kv.second.sizes())
            EXPECT_TRUE(torch::equal(it->second, kv.second)) << kv.first;
    }
}

// The converted component loaded by its family in fp32 and run on `inputs`.
inline NamedTensors runConverted(const ConvertedComponent& c, const NamedTensors& inputs,
                                 const std::string& path = "single-file") {
    const auto family = FamilyRegistry::global().require(c.className, path);
    const PrecisionPolicy policy(PrecisionPlan(), torch::kCPU);
    auto component = loadComponent(*family, sourceOf(c, path), policy, c.slot);
    torch::NoGradGuard noGrad;
    ProbeContext probes(policy, ProbeLevel::Off);
    return component->run(inputs, probes);
}

// The inputs of an io file with "in.<part>." renamed "in." ("in.vae.z" -> "in.z").
inline NamedTensors inputsOf(const NamedTensors& io, const std::string& part) {
    NamedTensors in;
    const std::string head = "in." + part + ".";
    for (const auto& kv : io)
        if (kv.first.rfind(head, 0) == 0)
            in.emplace("in." + kv.first.substr(head.size()), kv.second);
    return in;
}

// What a single file was read as: "slot className" for each component, in the file's order.
inline std::vector<std::string> slotsOf(const SingleFileContents& f) {
    std::vector<std::string> slots;
    for (const auto& c : f.components) slots.push_back(c.slot + " " + c.className);
    return slots;
}

inline const ConvertedComponent& componentIn(const SingleFileContents& f, const std::string& slot) {
    for (const auto& c : f.components)
        if (c.slot == slot) return c;
    throw std::runtime_error("no component in slot " + slot);
}

// The component of `f` in `slot`, which must be a `className`.
inline const ConvertedComponent& componentIn(const SingleFileContents& f, const std::string& slot,
                                             const std::string& className) {
    const ConvertedComponent& c = componentIn(f, slot);
    EXPECT_EQ(c.className, className) << slot;
    return c;
}

// Each of `fields` of the config `got` is `want`'s (null where `got` has none).
inline void expectFields(const nlohmann::json& got, const nlohmann::json& want,
                         const std::vector<std::string>& fields) {
    for (const auto& k : fields) EXPECT_EQ(got.value(k, nlohmann::json()), want[k]) << k;
}

// What tests/data/golden/single_files.json says of the golden SD 1.5 checkpoint
// (sd15_single.safetensors): its components' configs.
inline nlohmann::json sd15SingleReference() {
    return readJsonAt(dataPath("golden/single_files.json"))["single_files"]["sd15_single"];
}

// `f` holds one component, `className` in `slot`, and nothing it left unconverted or ignored.
inline ::testing::AssertionResult holdsOneComponent(const SingleFileContents& f,
                                                    const std::string& slot,
                                                    const std::string& className) {
    if (f.components.size() != 1)
        return ::testing::AssertionFailure() << f.components.size() << " components";
    if (!f.notConverted.empty() || !f.ignored.empty())
        return ::testing::AssertionFailure() << f.notConverted.size() << " tensors not converted, "
                                             << f.ignored.size() << " ignored";
    const ConvertedComponent& c = f.components[0];
    if (c.slot != slot || c.className != className)
        return ::testing::AssertionFailure() << c.className << " in " << c.slot;
    return ::testing::AssertionSuccess();
}

// `got` has `want`'s shape and is within `tolerance` (relative) of it; printed with `label`.
inline void expectCloseTo(const torch::Tensor& got, const torch::Tensor& want,
                          const std::string& label, double tolerance = 1e-4) {
    ASSERT_EQ(got.sizes(), want.sizes()) << label;
    const double err = relErr(got, want);
    std::printf("  %s rel err %.3e (max |ref| %.3f)\n", label.c_str(), err,
                want.abs().max().item<double>());
    EXPECT_LE(err, tolerance) << label;
}

// `c`, converted from the SD 1.5 single file (golden/sd15_single.safetensors), run on its
// reference's inputs for `part` ("unet", "vae", "clip"): the reference's output `out` (e.g.
// "decode.sample"), as golden/sd15_single_io.safetensors holds it.
inline void expectSd15SingleOutput(const ConvertedComponent& c, const std::string& part,
                                   const std::string& out) {
    const NamedTensors io = openTensors(dataPath("golden/sd15_single_io.safetensors"));
    const NamedTensors got =
        runConverted(c, inputsOf(io, part), dataPath("golden/sd15_single.safetensors"));
    expectCloseTo(got.at("out." + out), io.at("out." + part + "." + out),
                  "sd15_single " + part + " " + out);
}

// Runs `fn` and returns the message of the exception of type E it throws ("" when none).
template <typename E, typename Fn>
std::string errorOf(Fn fn) {
    try {
        fn();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}

}  // namespace hs::test
