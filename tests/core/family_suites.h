#pragma once
// The checks every model family shares, as diffusers' ModelTesterMixin has them: one
// value-parameterised suite per kind of check (its TEST_Ps in test_family_suites.cpp), each
// instantiated in the family's own test file with that family's data:
//
//   INSTANTIATE_TEST_SUITE_P(Cosmos, FamilyGolden, ::testing::Values(goldenCosmos()),
//                            test::CaseLabel());
//
//   FamilyGolden     the io file's every out.* through the registered family's run()
//   FamilyStreaming  LoadMode::Streamed gives the whole load's outputs, bit for bit
//   FamilyProbes     the probe points each level records: names, granularity, counts, order
//   FamilyConfig     config fields the family cannot run are refused, by name (ConfigError)
//   FamilyInputs     inputs the family cannot take are refused, by key and shape (InputError)
//   FamilyBf16       a bf16 plan stays within bf16's tolerance of fp32, emulated and native
//
// A family's own checks (its masks, its layouts, its overflows) stay plain TESTs in its file.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "golden_helpers.h"
#include "models/registry.h"
#include "numerics/probe.h"

namespace hs::test {

// ---- FamilyGolden ----------------------------------------------------------------------------

// A component folder of the test data and its io file `<folder>_io.safetensors`, run through the
// family (found by the folder's class) as run-module and the pipelines load it. Named by the
// folder's last part.
struct GoldenCase {
    // `outputs`: how many out.* the io file holds (run() gives exactly these), each compared to
    // `tolerance` (relative error).
    explicit GoldenCase(const std::string& folder, size_t outputs = 1, double tolerance = 1e-4);
    GoldenCase& at(std::vector<ProbeLevel> levels);  // run at each (Off alone by default)
    GoldenCase& as(const std::string& component);    // the slot; the family's default otherwise
    GoldenCase& keyedAsTheFile();  // the module's parameters are the file's keys, no more
    // What the family says of itself: its role, default slot, and keys its io names.
    GoldenCase& ofFamily(Role role, const std::string& defaultComponent,
                         std::vector<std::string> ioKeys = {});
    GoldenCase& copied();  // the weights copied out of the mapped file

    std::string label, folder, io;
    size_t outputs;
    double tolerance;
    std::vector<ProbeLevel> levels{ProbeLevel::Off};
    std::string component;
    bool sameKeys = false;
    std::optional<Role> role;
    std::string defaultComponent;
    std::vector<std::string> ioKeys;
    bool copy = false;
};

// ---- FamilyStreaming -------------------------------------------------------------------------

// A folder of the test data (and its io file, as GoldenCase) loaded whole and LoadMode::Streamed
// under each plan, its stream holding `blocks` blocks.
struct StreamingCase {
    StreamingCase(const std::string& folder, int blocks, std::vector<std::string> plans = {""});

    std::string label, folder, io;
    int blocks;
    std::vector<std::string> plans;
};

// ---- FamilyProbes ----------------------------------------------------------------------------

// What one probe level records (under `plan`; "" runs as stored).
struct ProbeExpectation {
    explicit ProbeExpectation(ProbeLevel level, const std::string& plan = "");
    ProbeExpectation& at(std::map<std::string, ProbeLevel> points);  // each at that granularity
    ProbeExpectation& has(std::vector<std::string> names);           // recorded
    ProbeExpectation& hasNot(std::vector<std::string> names);        // not recorded
    ProbeExpectation& distinctNames(int n);
    ProbeExpectation& recordCount(int n);
    ProbeExpectation& inOrder(std::vector<std::string> names);  // every record, in call order
    ProbeExpectation& from(const std::string& first, const std::string& last);
    ProbeExpectation& eachOnce();  // every point once, finite, and none finer than the level

    ProbeLevel level;
    std::string plan;
    std::map<std::string, ProbeLevel> points;
    std::vector<std::string> present, absent, order;
    int distinct = -1, records = -1;  // -1: not checked
    std::string first, last;
    bool once = false;
};

// `model` (its io: the inputs run() is given) run at each level, loaded as `component` (the
// family's default when ""): every name it records starts with "<component>.".
struct ProbeCase {
    ProbeCase(std::string label, std::function<ModelCase()> model,
              std::vector<ProbeExpectation> levels, std::string component = "");

    std::string label;
    std::function<ModelCase()> model;
    std::vector<ProbeExpectation> levels;
    std::string component;
};

// ---- FamilyConfig ----------------------------------------------------------------------------

// One change to a config that the family refuses: the ConfigError names `needle` ("" checks
// only that a ConfigError is thrown).
struct ConfigEdit {
    std::string needle;
    std::function<void(nlohmann::json&)> edit;
};

// `config[key] = value` / `config.erase(key)`, refused naming `needle` (the key when not given).
ConfigEdit setting(const std::string& key, nlohmann::json value, const std::string& needle);
ConfigEdit setting(const std::string& key, nlohmann::json value);
ConfigEdit removing(const std::string& key, const std::string& needle);

// `base` (a config the family reads, through `parse`) with each edit alone.
struct ConfigCase {
    std::string label;
    std::function<nlohmann::json()> base;
    std::function<void(const nlohmann::json&)> parse;  // throws ConfigError
    std::vector<ConfigEdit> edits;
};

// ---- FamilyInputs ----------------------------------------------------------------------------

// Inputs the family refuses: an InputError naming every one of `needles`.
struct InputEdit {
    std::function<void(NamedTensors&)> edit;  // applied to the model's inputs
    std::vector<std::string> needles;
};

InputEdit inputsOnly(NamedTensors inputs, std::vector<std::string> needles);  // these alone
InputEdit inputSet(const std::string& key, torch::Tensor value, std::vector<std::string> needles);
InputEdit inputRemoved(const std::string& key, std::vector<std::string> needles);

// `model` (its io's in.* the inputs each edit starts from) given each edit's inputs.
struct InputCase {
    std::string label;
    std::function<ModelCase()> model;
    std::vector<InputEdit> edits;
};

// ---- FamilyBf16 ------------------------------------------------------------------------------

// A folder of the test data (and its io file, as GoldenCase) run with `component` (the family's
// default when "") in bf16, in each bf16 mode this CPU has.
struct Bf16Case {
    explicit Bf16Case(const std::string& folder, const std::string& component = "");

    std::string label, folder, io, component;
};

// ---- the suites ------------------------------------------------------------------------------

class FamilyGolden : public ::testing::TestWithParam<GoldenCase> {};
class FamilyStreaming : public ::testing::TestWithParam<StreamingCase> {};
class FamilyProbes : public ::testing::TestWithParam<ProbeCase> {};
class FamilyConfig : public ::testing::TestWithParam<ConfigCase> {};
class FamilyBf16 : public ::testing::TestWithParam<Bf16Case> {};
class FamilyInputs : public ::testing::TestWithParam<InputCase> {};

// Instances are named (test::CaseLabel) and printed (test::operator<<, test_util.h) by their label:
// "Cosmos/FamilyGolden.MatchesTheReference/cosmos".

}  // namespace hs::test

namespace hs {
// What a family's test file reads unqualified: the suites, as INSTANTIATE_TEST_SUITE_P takes
// them, and the golden helpers.
using test::contextFor;
using test::dataPath;
using test::expectThrowNaming;
using test::FamilyBf16;
using test::FamilyConfig;
using test::FamilyGolden;
using test::FamilyInputs;
using test::FamilyProbes;
using test::FamilyStreaming;
using test::keysOf;
using test::ModelCase;
using test::openCase;
using test::readIo;
using test::readJson;
using test::relErr;
}  // namespace hs
