#pragma once
// The checks every model family shares, as diffusers' ModelTesterMixin has them: one
// value-parameterised suite per kind of check (its TEST_Ps in test_family_suites.cpp), each
// instantiated in the family's own test file with that family's data:
//
//   HS_CASES(Cosmos, FamilyGolden, test::GoldenCase("golden/cosmos"));
//
//   FamilyGolden     the io file's every out.* through the registered family's run()
//   FamilyStreaming  LoadMode::Streamed gives the whole load's outputs, bit for bit
//   FamilyProbes     the probe points each level records: names, granularity, counts, order
//   FamilyConfig     config fields the family cannot run are refused, by name (ConfigError)
//   FamilyInputs     inputs the family cannot take are refused, by key and shape (InputError)
//   FamilyBf16       a bf16 plan stays within bf16's tolerance of fp32, emulated and native
//   FamilyWeights    weights the family cannot load are refused, by key (WeightError)
//
// A family's own checks (its masks, its layouts, its overflows) stay plain TESTs in its file; the
// helpers below serve those that every family has in some form (random weights, reduced precision,
// an fp16 overflow named inside its block).
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "golden_helpers.h"
#include "models/common/layers.h"
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

// A family's own golden: at every probe level (Off, Layer, Op), its module keyed as the file, and
// what the family says of itself (GoldenCase::ofFamily).
GoldenCase familyGolden(const std::string& folder, Role role, const std::string& defaultComponent,
                        std::vector<std::string> ioKeys = {});

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
    // `prefix.name` for each of `names` ("" prefix: the name alone) at `granularity`, added to
    // the points above: a family's points listed by block and granularity.
    ProbeExpectation& at(ProbeLevel granularity, const std::string& prefix,
                         const std::vector<std::string>& names);
    ProbeExpectation& has(std::vector<std::string> names);     // recorded
    ProbeExpectation& hasNot(std::vector<std::string> names);  // not recorded
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

// At Layer level, the points every diffusers VAE decoder loaded as "vae" records: post_quant_conv,
// conv_in, the mid block and its first resnet, the first up block and conv_out, and `more`; the
// first is post_quant_conv, the last conv_out.
ProbeExpectation vaeDecoderAtLayer(std::vector<std::string> more);

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

    // The config file `path` of the test data read by `Config::fromJson`.
    template <class Config>
    static ConfigCase ofFile(std::string label, const std::string& path,
                             std::vector<ConfigEdit> edits) {
        return {std::move(label), [path] { return readJson(dataPath(path)); },
                [](const nlohmann::json& j) { Config::fromJson(j); }, std::move(edits)};
    }
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

// What every text encoder refuses of its in.input_ids: none, a 1-D tensor, floats, the id `vocab`
// (one past its vocabulary); then `more`.
std::vector<InputEdit> tokenIdEdits(int vocab, std::vector<InputEdit> more = {});

// `model` (its io's in.* the inputs each edit starts from) given each edit's inputs.
struct InputCase {
    std::string label;
    std::function<ModelCase()> model;
    std::vector<InputEdit> edits;
};

// ---- FamilyWeights ---------------------------------------------------------------------------

// A change to a model's weights (or config) that its family refuses to load: a WeightError naming
// every one of `needles`.
struct WeightEdit {
    std::function<void(ModelCase&)> edit;
    std::vector<std::string> needles;
};

WeightEdit weightRemoved(const std::string& key);                   // naming the key
WeightEdit weightSet(const std::string& key, torch::Tensor value);  // naming the key
WeightEdit configSet(const std::string& key, nlohmann::json value,
                     std::vector<std::string> needles);

// `model` loaded through its family after each edit alone.
struct WeightCase {
    std::string label;
    std::function<ModelCase()> model;
    std::vector<WeightEdit> edits;
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
class FamilyWeights : public ::testing::TestWithParam<WeightCase> {};

// Instances (HS_CASES, test_util.h) are named (test::CaseLabel) and printed (test::operator<<) by
// their label: "Cosmos/FamilyGolden.MatchesTheReference/cosmos".

// ---- what a family's own tests share ---------------------------------------------------------

// Seeded random weights in checkpoint layout: `build()`'s module (built after the seed) with its
// training initialisation, then each key `normWeight` names around 1 (1 + 0.1 N(0, 1)) and every
// other ".bias" small (0.05 N(0, 1)).
template <class Build>
WeightMap randomCheckpoint(uint64_t seed, Build build,
                           const std::function<bool(const std::string&)>& normWeight) {
    torch::manual_seed(seed);
    auto m = build();
    nn::initialiseForTraining(*m);
    WeightMap w;
    for (auto& kv : stateOf(*m)) {
        torch::Tensor t = kv.second.detach().clone();
        const std::string& k = kv.first;
        if (normWeight(k))
            t = 1 + 0.1 * torch::randn_like(t);
        else if (k.size() > 5 && k.substr(k.size() - 5) == ".bias")
            t = 0.05 * torch::randn_like(t);
        w.emplace(k, t);
    }
    return w;
}

// `plan`, and the relative error it may have against fp32.
struct PlanTolerance {
    const char* plan;
    double tolerance;
};

// `run(plan)` (the output of a model loaded under `plan`) under each plan, in each bf16 mode this
// CPU has: an fp32 tensor within the plan's tolerance of `fp32` but not equal to it (the reduced
// format really ran). Returns the outputs of the first plan by mode.
std::map<CpuBf16, torch::Tensor> expectReducedPrecisionAgrees(
    const std::function<torch::Tensor(const std::string& plan)>& run, const torch::Tensor& fp32,
    const std::vector<PlanTolerance>& plans);

// `c` (its className's family) loaded in `component` (the family's default when "") under the
// context's plan, as run-module and the pipelines load it.
std::shared_ptr<Component> loadModel(const ModelCase& c, ProbeContext& probes,
                                     const std::string& component = "");

// `c` run on its io's inputs under "" (the reference) and under each plan, in each bf16 mode this
// CPU has: every plan's `output` within the plan's tolerance of fp32 and not equal to it.
void expectReducedPrecisionAgrees(const ModelCase& c, const std::vector<PlanTolerance>& plans,
                                  const std::string& output = "out.sample");

// A model whose weights were scaled so that `peak` (a point inside or at `block`) passes 65504 in
// fp32 while every weight stays finite in fp16: the product's core case.
struct Fp16OverflowCase {
    std::function<std::shared_ptr<Component>(ProbeContext&)> load;  // under the context's plan
    NamedTensors inputs;
    std::string fp16Plan, block;
    std::string peak;                          // "": the caller checks the fp32 run itself
    ProbeLevel fp32Level = ProbeLevel::Layer;  // the fp32 run's probes
};

// In fp32 (when the case names its peak) every output is finite, no point is non-finite and
// `peak` passes 65504. Under the fp16 plan at each level every weight is finite, and the first
// non-finite point is the block or inside it, executed Emulated; the level's point, model and
// probes go to `check`.
void expectFp16OverflowInsideTheBlock(
    const Fp16OverflowCase& c, const std::vector<ProbeLevel>& levels,
    const std::function<void(ProbeLevel, const FirstNonFinite&, Component&, ProbeContext&)>& check =
        {});

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
using test::FamilyWeights;
using test::keysOf;
using test::ModelCase;
using test::openCase;
using test::readIo;
using test::readJson;
using test::relErr;
}  // namespace hs
