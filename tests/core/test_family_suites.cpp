// The checks every model family shares (family_suites.h), each instantiated in the family's own
// test file with its data: golden parity through the family's run(), a streamed load equal to
// the whole one, the probe points at each level, and the configs the family refuses.
#include <gtest/gtest.h>

#include <set>

#include "family_suites.h"
#include "models/common/config.h"
#include "models/common/weight_stream.h"
#include "test_util.h"

namespace hs::test {

namespace {

std::string lastPartOf(const std::string& folder) {
    return folder.substr(folder.rfind('/') + 1);
}

}  // namespace

GoldenCase::GoldenCase(const std::string& folder, size_t outputs, double tolerance)
    : label(lastPartOf(folder)),
      folder(folder),
      io(folder + "_io.safetensors"),
      outputs(outputs),
      tolerance(tolerance) {}

GoldenCase& GoldenCase::at(std::vector<ProbeLevel> l) {
    levels = std::move(l);
    return *this;
}

GoldenCase& GoldenCase::as(const std::string& c) {
    component = c;
    return *this;
}

GoldenCase& GoldenCase::keyedAsTheFile() {
    sameKeys = true;
    return *this;
}

GoldenCase& GoldenCase::ofFamily(Role r, const std::string& d, std::vector<std::string> keys) {
    role = r;
    defaultComponent = d;
    ioKeys = std::move(keys);
    return *this;
}

GoldenCase& GoldenCase::copied() {
    copy = true;
    return *this;
}

GoldenCase familyGolden(const std::string& folder, Role role, const std::string& defaultComponent,
                        std::vector<std::string> ioKeys) {
    return GoldenCase(folder)
        .at({ProbeLevel::Off, ProbeLevel::Layer, ProbeLevel::Op})
        .keyedAsTheFile()
        .ofFamily(role, defaultComponent, std::move(ioKeys));
}

StreamingCase::StreamingCase(const std::string& folder, int blocks, std::vector<std::string> plans)
    : label(lastPartOf(folder)),
      folder(folder),
      io(folder + "_io.safetensors"),
      blocks(blocks),
      plans(std::move(plans)) {}

Bf16Case::Bf16Case(const std::string& folder, const std::string& component)
    : label(lastPartOf(folder)),
      folder(folder),
      io(folder + "_io.safetensors"),
      component(component) {}

ProbeExpectation::ProbeExpectation(ProbeLevel level, const std::string& plan)
    : level(level), plan(plan) {}

ProbeExpectation& ProbeExpectation::at(std::map<std::string, ProbeLevel> p) {
    points = std::move(p);
    return *this;
}

ProbeExpectation& ProbeExpectation::at(ProbeLevel granularity, const std::string& prefix,
                                       const std::vector<std::string>& names) {
    for (const auto& n : names) points[prefix.empty() ? n : prefix + "." + n] = granularity;
    return *this;
}

ProbeExpectation& ProbeExpectation::has(std::vector<std::string> names) {
    present = std::move(names);
    return *this;
}

ProbeExpectation vaeDecoderAtLayer(std::vector<std::string> more) {
    std::vector<std::string> names = {"vae.post_quant_conv",     "vae.decoder.conv_in",
                                      "vae.decoder.mid_block",   "vae.decoder.mid_block.resnets.0",
                                      "vae.decoder.up_blocks.0", "vae.decoder.conv_out"};
    names.insert(names.end(), more.begin(), more.end());
    return ProbeExpectation(ProbeLevel::Layer)
        .has(std::move(names))
        .from("vae.post_quant_conv", "vae.decoder.conv_out");
}

ProbeExpectation& ProbeExpectation::hasNot(std::vector<std::string> names) {
    absent = std::move(names);
    return *this;
}

ProbeExpectation& ProbeExpectation::distinctNames(int n) {
    distinct = n;
    return *this;
}

ProbeExpectation& ProbeExpectation::recordCount(int n) {
    records = n;
    return *this;
}

ProbeExpectation& ProbeExpectation::inOrder(std::vector<std::string> names) {
    order = std::move(names);
    return *this;
}

ProbeExpectation& ProbeExpectation::from(const std::string& a, const std::string& b) {
    first = a;
    last = b;
    return *this;
}

ProbeExpectation& ProbeExpectation::eachOnce() {
    once = true;
    return *this;
}

ProbeCase::ProbeCase(std::string label, std::function<ModelCase()> model,
                     std::vector<ProbeExpectation> levels, std::string component)
    : label(std::move(label)),
      model(std::move(model)),
      levels(std::move(levels)),
      component(std::move(component)) {}

InputEdit inputsOnly(NamedTensors inputs, std::vector<std::string> needles) {
    return {[inputs](NamedTensors& in) { in = inputs; }, std::move(needles)};
}

InputEdit inputSet(const std::string& key, torch::Tensor value, std::vector<std::string> needles) {
    return {[key, value](NamedTensors& in) { in[key] = value; }, std::move(needles)};
}

InputEdit inputRemoved(const std::string& key, std::vector<std::string> needles) {
    return {[key](NamedTensors& in) { in.erase(key); }, std::move(needles)};
}

WeightEdit weightRemoved(const std::string& key) {
    return {[key](ModelCase& c) { c.weights.erase(key); }, {key}};
}

WeightEdit weightSet(const std::string& key, torch::Tensor value) {
    return {[key, value](ModelCase& c) { c.weights[key] = value; }, {key}};
}

WeightEdit configSet(const std::string& key, nlohmann::json value,
                     std::vector<std::string> needles) {
    return {[key, value](ModelCase& c) { c.config[key] = value; }, std::move(needles)};
}

std::vector<InputEdit> tokenIdEdits(int vocab, std::vector<InputEdit> more) {
    std::vector<InputEdit> edits{
        inputsOnly({}, {"in.input_ids"}),
        inputsOnly({{"in.input_ids", torch::zeros({4}, torch::kInt64)}}, {"in.input_ids"}),
        inputsOnly({{"in.input_ids", torch::zeros({1, 4})}}, {"integer"}),
        inputsOnly({{"in.input_ids", torch::tensor({{3, vocab}})}},
                   {"id " + std::to_string(vocab)})};
    edits.insert(edits.end(), more.begin(), more.end());
    return edits;
}

ConfigEdit setting(const std::string& key, nlohmann::json value, const std::string& needle) {
    return {needle, [key, value](nlohmann::json& j) { j[key] = value; }};
}

ConfigEdit setting(const std::string& key, nlohmann::json value) {
    return setting(key, std::move(value), key);
}

ConfigEdit removing(const std::string& key, const std::string& needle) {
    return {needle, [key](nlohmann::json& j) { j.erase(key); }};
}

std::map<CpuBf16, torch::Tensor> expectReducedPrecisionAgrees(
    const std::function<torch::Tensor(const std::string& plan)>& run, const torch::Tensor& fp32,
    const std::vector<PlanTolerance>& plans) {
    std::map<CpuBf16, torch::Tensor> firstByMode;
    for (CpuBf16 mode : bf16ModesHere()) {
        ScopedCpuBf16 scoped(mode);
        for (const PlanTolerance& p : plans) {
            const torch::Tensor o = run(p.plan);
            EXPECT_EQ(o.scalar_type(), torch::kFloat) << p.plan;
            const double err = relErr(o, fp32);
            std::printf("  bf16 %-8s %-60s vs fp32: rel err %.3e\n", cpuBf16Name(mode).c_str(),
                        p.plan, err);
            EXPECT_LT(err, p.tolerance) << p.plan;
            EXPECT_GT(err, 0.0) << p.plan;  // the reduced format really ran
            if (&p == &plans.front()) firstByMode[mode] = o;
        }
    }
    return firstByMode;
}

std::shared_ptr<Component> loadModel(const ModelCase& c, ProbeContext& probes,
                                     const std::string& component) {
    const auto family = FamilyRegistry::global().require(c.className, "test");
    return loadComponent(*family, {"test", c.config, c.weights}, probes.policy(),
                         component.empty() ? family->defaultComponent : component);
}

void expectReducedPrecisionAgrees(const ModelCase& c, const std::vector<PlanTolerance>& plans,
                                  const std::string& output) {
    const NamedTensors in = onlyInputs(c.io);
    auto run = [&](const std::string& plan) {
        ProbeContext p = contextFor(plan);
        return loadModel(c, p)->run(in, p).at(output);
    };
    expectReducedPrecisionAgrees(run, run(""), plans);
}

void expectFp16OverflowInsideTheBlock(const Fp16OverflowCase& c,
                                      const std::vector<ProbeLevel>& levels,
                                      const std::function<void(ProbeLevel, const FirstNonFinite&,
                                                               Component&, ProbeContext&)>& check) {
    if (!c.peak.empty()) {
        ProbeContext p32 = contextFor("", c.fp32Level);
        for (const auto& kv : c.load(p32)->run(c.inputs, p32))
            EXPECT_TRUE(torch::isfinite(kv.second).all().item<bool>()) << kv.first;
        EXPECT_FALSE(p32.firstNonFinite().has_value());
        double peak = 0;
        for (const auto& r : p32.records())
            if (r.name == c.peak) peak = r.stats.absMax;
        std::printf("  fp32: max |%s| = %.4g\n", c.peak.c_str(), peak);
        EXPECT_GT(peak, kFp16Max);
    }
    for (ProbeLevel level : levels) {
        ProbeContext p16 = contextFor(c.fp16Plan, level);
        auto m16 = c.load(p16);
        for (const auto& kv : m16->module().named_parameters())  // the weights fit fp16
            ASSERT_TRUE(torch::isfinite(kv.value()).all().item<bool>()) << kv.key();
        m16->run(c.inputs, p16);
        const auto& first = p16.firstNonFinite();
        ASSERT_TRUE(first.has_value()) << probeLevelName(level);
        std::printf("  fp16, probes %-6s: first non-finite at %s\n", probeLevelName(level).c_str(),
                    first->at.name.c_str());
        EXPECT_TRUE(first->at.name == c.block || first->at.name.rfind(c.block + ".", 0) == 0)
            << first->at.name;
        EXPECT_EQ(first->at.execution, Execution::Emulated);
        if (check) check(level, *first, *m16, p16);
    }
}

namespace {

std::shared_ptr<const Family> familyOf(const std::string& className) {
    return FamilyRegistry::global().require(className, "test");
}

}  // namespace

// ---- FamilyGolden ----------------------------------------------------------------------------

TEST_P(FamilyGolden, MatchesTheReference) {
    const GoldenCase& g = GetParam();
    const ModelCase c = openCase(g.folder, g.io, g.copy);
    const auto family = familyOf(c.className);
    if (g.role) {
        EXPECT_EQ(family->role, *g.role);
        EXPECT_EQ(family->defaultComponent, g.defaultComponent);
    }
    for (const auto& key : g.ioKeys) EXPECT_NE(family->io.find(key), std::string::npos) << key;
    const std::string component = g.component.empty() ? family->defaultComponent : g.component;
    const NamedTensors in = onlyInputs(c.io);
    for (ProbeLevel level : g.levels) {
        ProbeContext probes = contextFor("", level);
        auto model =
            loadComponent(*family, {g.folder, c.config, c.weights}, probes.policy(), component);
        if (g.sameKeys) {
            EXPECT_EQ(keysOf(stateOf(model->module())), keysOf(c.weights));
        }
        const NamedTensors out = model->run(in, probes);
        double worst = 0;
        size_t compared = 0;
        for (const auto& kv : c.io) {
            if (kv.first.rfind("out.", 0) != 0) continue;
            ASSERT_TRUE(out.count(kv.first)) << "no output " << kv.first;
            const double err =
                compareOutput(out, c.io, kv.first,
                              g.label + " " + kv.first + " (probes " + probeLevelName(level) + ")");
            EXPECT_LE(err, g.tolerance) << kv.first;
            worst = std::max(worst, err);
            ++compared;
        }
        std::printf("  %s %s: %zu outputs, worst relative error %.3e\n", c.className.c_str(),
                    g.label.c_str(), compared, worst);
        EXPECT_EQ(compared, g.outputs);
        EXPECT_EQ(out.size(), g.outputs);
    }
}

// ---- FamilyStreaming -------------------------------------------------------------------------

TEST_P(FamilyStreaming, StreamedEqualsTheWholeLoad) {
    const StreamingCase& s = GetParam();
    const ModelCase c = openCase(s.folder, s.io);
    const auto family = familyOf(c.className);
    const std::string component = family->defaultComponent;
    const ComponentSource source{s.folder, c.config, c.weights};
    const NamedTensors in = onlyInputs(c.io);
    for (const std::string& plan : s.plans) {
        SCOPED_TRACE("plan '" + plan + "'");
        ProbeContext pf = contextFor(plan, ProbeLevel::Layer);
        ProbeContext ps = contextFor(plan, ProbeLevel::Layer);
        auto whole = loadComponent(*family, source, pf.policy(), component);
        auto streamed = loadComponent(*family, source, ps.policy(), component, LoadMode::Streamed);
        ASSERT_EQ(streamed->loadMode(), LoadMode::Streamed);
        const auto& stream = *streamed->streamedBlocks()->weightStream();
        EXPECT_EQ(stream.blocks().size(), size_t(s.blocks));
        const NamedTensors a = whole->run(in, pf);
        const NamedTensors b = streamed->run(in, ps);
        ASSERT_EQ(a.size(), b.size());
        for (const auto& kv : a) {
            ASSERT_TRUE(b.count(kv.first)) << kv.first;
            EXPECT_TRUE(torch::equal(kv.second, b.at(kv.first))) << kv.first;
        }
        // Each block converted once for the run, and none left converted after it.
        EXPECT_EQ(size_t(stream.materialisations()), stream.blocks().size());
        EXPECT_EQ(stream.materialisedBlocks(), 0u);
    }
}

// ---- FamilyProbes ----------------------------------------------------------------------------

TEST_P(FamilyProbes, RecordTheirPointsAtEachLevel) {
    const ProbeCase& p = GetParam();
    const ModelCase c = p.model();
    const auto family = familyOf(c.className);
    const std::string component = p.component.empty() ? family->defaultComponent : p.component;
    const NamedTensors in = onlyInputs(c.io);
    for (const ProbeExpectation& e : p.levels) {
        SCOPED_TRACE("probes " + probeLevelName(e.level));
        ProbeContext probes = contextFor(e.plan, e.level);
        auto model =
            loadComponent(*family, {p.label, c.config, c.weights}, probes.policy(), component);
        model->run(in, probes);
        const auto& records = probes.records();
        std::map<std::string, ProbeLevel> got;
        std::vector<std::string> order;
        for (const auto& r : records) {
            got.emplace(r.name, r.granularity);
            order.push_back(r.name);
            EXPECT_EQ(r.name.rfind(component + ".", 0), 0u) << r.name;
        }
        for (const auto& kv : e.points) {
            ASSERT_TRUE(got.count(kv.first)) << "no probe point " << kv.first;
            EXPECT_EQ(got.at(kv.first), kv.second) << kv.first;
        }
        for (const auto& n : e.present) EXPECT_TRUE(got.count(n)) << "no probe point " << n;
        for (const auto& n : e.absent) EXPECT_FALSE(got.count(n)) << n;
        if (e.distinct >= 0) {
            EXPECT_EQ(got.size(), size_t(e.distinct));
        }
        if (e.records >= 0) {
            EXPECT_EQ(records.size(), size_t(e.records));
        }
        if (!e.order.empty()) {
            EXPECT_EQ(order, e.order);
        }
        if (!e.first.empty()) {
            ASSERT_FALSE(records.empty());
            EXPECT_EQ(records.front().name, e.first);
            EXPECT_EQ(records.back().name, e.last);
        }
        if (e.once) {
            std::set<std::string> seen;
            for (const auto& r : records) {
                EXPECT_LE(int(r.granularity), int(e.level)) << r.name;
                EXPECT_TRUE(seen.insert(r.name).second) << "recorded twice: " << r.name;
                EXPECT_TRUE(r.stats.allFinite()) << r.name;
            }
        }
    }
}

// ---- FamilyConfig ----------------------------------------------------------------------------

TEST_P(FamilyConfig, RefusesWhatItCannotRunByName) {
    const ConfigCase& c = GetParam();
    const nlohmann::json base = c.base();
    EXPECT_NO_THROW(c.parse(base));
    for (const ConfigEdit& e : c.edits) {
        nlohmann::json j = base;
        e.edit(j);
        SCOPED_TRACE(j.dump());
        if (e.needle.empty()) {
            EXPECT_THROW(c.parse(j), ConfigError);
        } else {
            expectThrowNaming<ConfigError>([&] { c.parse(j); }, {e.needle});
        }
    }
}

// ---- FamilyInputs ----------------------------------------------------------------------------

TEST_P(FamilyInputs, RefusesWhatItCannotTakeByName) {
    const InputCase& p = GetParam();
    const ModelCase c = p.model();
    const auto family = familyOf(c.className);
    ProbeContext probes = contextFor("");
    auto model = loadComponent(*family, {p.label, c.config, c.weights}, probes.policy(),
                               family->defaultComponent);
    const NamedTensors base = onlyInputs(c.io);
    for (const InputEdit& e : p.edits) {
        NamedTensors in = base;
        e.edit(in);
        expectThrowNaming<InputError>([&] { model->run(in, probes); }, e.needles);
    }
}

// ---- FamilyWeights ---------------------------------------------------------------------------

TEST_P(FamilyWeights, RefusesWhatItCannotLoadByName) {
    const WeightCase& w = GetParam();
    const ModelCase base = w.model();
    for (const WeightEdit& e : w.edits) {
        ModelCase c = base;
        e.edit(c);
        ProbeContext probes = contextFor("");
        expectThrowNaming<WeightError>([&] { loadModel(c, probes); }, e.needles);
    }
}

// ---- FamilyBf16 ------------------------------------------------------------------------------

// Every output within 3e-2 (relative) of fp32 but not equal to it (bf16 really ran), nothing
// non-finite, the probes recording bf16 executed as the mode says; native and emulated agree
// as closely where the CPU has both.
TEST_P(FamilyBf16, StaysWithinBf16Tolerance) {
    const Bf16Case& b = GetParam();
    const ModelCase c = openCase(b.folder, b.io);
    const auto family = familyOf(c.className);
    const std::string component = b.component.empty() ? family->defaultComponent : b.component;
    const NamedTensors in = onlyInputs(c.io);
    auto run = [&](ProbeContext& probes) {
        return loadComponent(*family, {b.folder, c.config, c.weights}, probes.policy(), component)
            ->run(in, probes);
    };
    ProbeContext p32 = contextFor(component + "=fp32");
    const NamedTensors fp = run(p32);
    std::map<CpuBf16, NamedTensors> byMode;
    for (CpuBf16 mode : bf16ModesHere()) {
        SCOPED_TRACE(cpuBf16Name(mode));
        ScopedCpuBf16 scoped(mode);
        ProbeContext probes = contextFor(component + "=bf16", ProbeLevel::Layer);
        const NamedTensors bf = run(probes);
        double worst = 0;
        for (const auto& kv : fp) worst = std::max(worst, relErr(bf.at(kv.first), kv.second));
        std::printf("  %s bf16 %s: worst relative error vs fp32 %.3e\n", b.label.c_str(),
                    cpuBf16Name(mode).c_str(), worst);
        EXPECT_LE(worst, 3e-2);
        EXPECT_GT(worst, 0.0);
        EXPECT_FALSE(probes.firstNonFinite().has_value());
        ASSERT_FALSE(probes.records().empty());
        const Execution e = mode == CpuBf16::Native ? Execution::Native : Execution::Emulated;
        EXPECT_EQ(probes.records().front().format, Format::BF16);
        EXPECT_EQ(probes.records().front().execution, e);
        EXPECT_EQ(probes.records().back().execution, e);
        byMode[mode] = bf;
    }
    if (byMode.size() == 2) {
        double worst = 0;
        for (const auto& kv : fp)
            worst = std::max(worst, relErr(byMode[CpuBf16::Native].at(kv.first),
                                           byMode[CpuBf16::Emulated].at(kv.first)));
        std::printf("  %s bf16 native vs emulated: worst relative error %.3e\n", b.label.c_str(),
                    worst);
        EXPECT_LE(worst, 3e-2);
    }
}

}  // namespace hs::test
