// The residual-stream probe points of every family and the two remedies that act on them:
//   - `<component>=fp16,<component>=fp32-residual`: the points marked kResidualStream hold fp32
//     values (sums of fp16 sub-layer outputs that fp16 could not hold exactly), every other
//     point is stored as in the plain fp16 plan; with `<component>=fp16` alone the same stream
//     points are fp16. One case per family, on its golden model.
//   - `<block>=clamp` on a Qwen-Image DiT whose streams overflow fp16: the overflow is still named
//     where it happens, the clamped blocks' streams stay finite and inside +-65504.
#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "golden_helpers.h"
#include "models/opened_component.h"
#include "models/registry.h"
#include "numerics/format.h"
#include "qwenimage_fixture.h"
#include "test_util.h"

namespace hs {
namespace {

using test::contextFor;
using test::dataPath;
using test::readIo;

struct FamilyCase {
    const char* label;
    const char* folder;  // under the test data
    const char* io;      // its in.* tensors
    // The residual-stream points, by name relative to the component. Block-level points of a
    // down/up block (`[encoder.|decoder.](down|up)_blocks.N`) are streams where the block has no
    // sampler; the test decides those from the weights.
    const char* residual;
    int names = -1;  // how many distinct stream points it records (-1: not checked)
};

void PrintTo(const FamilyCase& c, std::ostream* os) {
    *os << c.label;
}

// The conv families' stream points: resnets (shortcut + h), attentions (x + attention),
// the mid blocks (their last resnet's stream).
constexpr const char* kVaeStreams =
    R"((encoder|decoder)\.)"
    R"(((((down|up)_blocks\.\d+)|mid_block)\.(resnets|attentions)\.\d+|mid_block))";

const FamilyCase kCasesResidualRemedies[] = {
    {"Flux", "golden/flux", "golden/flux_io.safetensors",
     R"(transformer_blocks\.\d+(\.context|\.attn_residual|\.context_attn_residual)?)"
     R"(|single_transformer_blocks\.\d+)"},
    {"QwenImage", "golden/qwenimage", "golden/qwenimage_io.safetensors",
     R"(transformer_blocks\.\d+(\.context|\.attn_residual|\.context_attn_residual)?)"},
    {"Cosmos", "golden/cosmos", "golden/cosmos_io.safetensors",
     R"(transformer_blocks\.\d+(\.attn1_residual|\.attn2_residual)?)"},
    {"AnimaAdapter", "golden/anima_adapter", "golden/anima_adapter_io.safetensors",
     R"(blocks\.\d+(\.self_attn_residual|\.cross_attn_residual)?)"},
    {"Unet", "unet/golden", "unet/golden_io.safetensors",
     R"((((down|up)_blocks\.\d+|mid_block)\.(resnets|attentions)\.\d+)"
     R"((\.transformer_blocks\.\d+(\.attn1_residual|\.attn2_residual)?)?)|mid_block)"},
    {"Vae", "golden/vae", "golden/vae_io.safetensors", kVaeStreams},
    {"WanVae", "golden/qwen_vae", "golden/qwen_vae_io.safetensors", kVaeStreams},
    {"Clip", "golden/clip", "golden/clip_io.safetensors",
     R"(text_model\.encoder\.layers\.\d+(\.attn_residual)?)"},
    {"Qwen2", "golden/qwen2", "golden/qwen2_io.safetensors",
     R"(([a-z_]+\.)*layers\.\d+(\.attn_residual)?)"},
    {"Qwen3", "golden/qwen3", "golden/qwen3_io.safetensors",
     R"(([a-z_]+\.)*layers\.\d+(\.attn_residual)?)"},
    {"T5", "golden/t5", "golden/t5_io.safetensors", R"(encoder\.block\.\d+(\.layer\.0)?)"},
    // The blocks' outputs and their residual sums, attn2's included. Block 0: attn_residual,
    // attn2_residual, itself, context_attn_residual, .context; block 1: attn_residual, itself.
    {"SD3", "golden/sd35", "golden/sd35_io.safetensors",
     R"(transformer_blocks\.\d+(\.context|\.attn_residual|\.attn2_residual|\.context_attn_residual)?)",
     7},
};

NamedTensors inputsOfResidualRemedies(const NamedTensors& io) {
    NamedTensors in;
    for (const auto& kv : io)
        if (kv.first.rfind("in.", 0) == 0) in.emplace(kv);
    return in;
}

// True when v (a float's value) has no exact fp16 form: it was not rounded to fp16.
bool notFp16(double v) {
    if (!std::isfinite(v)) return false;
    return double(float(c10::Half(float(v)))) != v;
}

// Whether the probe point `rel` (relative to the component) is a residual stream.
bool isStream(const std::string& rel, const std::regex& streams,
              const std::set<std::string>& keys) {
    static const std::regex block(R"(((encoder|decoder)\.)?(down|up)_blocks\.\d+)");
    if (std::regex_match(rel, block)) {
        for (const char* sampler : {".downsamplers.", ".upsamplers.", ".resample."}) {
            const std::string prefix = rel + sampler;
            auto it = keys.lower_bound(prefix);
            if (it != keys.end() && it->rfind(prefix, 0) == 0) return false;
        }
        return true;
    }
    return std::regex_match(rel, streams);
}

class ResidualStreams : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(ResidualStreams, Fp32ResidualKeepsExactlyTheStreamPointsInFp32) {
    const FamilyCase& c = GetParam();
    const OpenedComponent opened = openFolderComponent(dataPath(c.folder));
    const auto family = FamilyRegistry::global().require(opened.className, c.folder);
    const std::string comp = family->defaultComponent;
    const NamedTensors in = inputsOfResidualRemedies(readIo(c.io));
    const std::set<std::string> keys = test::keysOf(opened.source.weights);

    auto run = [&](const std::string& plan) {
        ProbeContext probes = contextFor(plan, ProbeLevel::Op);
        auto m = loadComponent(*family, opened.source, probes.policy(), comp);
        torch::NoGradGuard noGrad;
        m->run(in, probes);
        return probes.takeRecords();
    };
    const auto plain = run(comp + "=fp16");
    const auto kept = run(comp + "=fp16," + comp + "=fp32-residual");
    ASSERT_EQ(plain.size(), kept.size());

    const std::regex streams(c.residual);
    const std::string prefix = comp + ".";
    int streamPoints = 0, inexact = 0, fp16Points = 0;
    std::set<std::string> names;
    for (size_t i = 0; i < kept.size(); ++i) {
        const ProbeRecord& a = plain[i];
        const ProbeRecord& b = kept[i];
        ASSERT_EQ(a.name, b.name) << "record " << i;
        ASSERT_EQ(b.name.rfind(prefix, 0), 0u) << b.name;
        const std::string rel = b.name.substr(prefix.size());
        if (isStream(rel, streams, keys)) {
            ++streamPoints;
            names.insert(rel);
            // (c) plain fp16: the stream is stored in fp16, every value exact in fp16.
            EXPECT_EQ(formatName(a.format), "fp16") << a.name;
            EXPECT_FALSE(notFp16(a.stats.min) || notFp16(a.stats.max)) << a.name;
            // (a) fp32-residual: recorded as fp32, its extremes sums fp16 cannot hold.
            EXPECT_EQ(formatName(b.format), "fp32") << b.name;
            if (notFp16(b.stats.min) || notFp16(b.stats.max)) ++inexact;
        } else {
            // (b) everything else is stored as the fp16 plan stores it (a few points are fp32
            // by design in both, e.g. Qwen's attention scores).
            EXPECT_EQ(formatName(b.format), formatName(a.format)) << b.name;
            if (b.format == Format::FP16) ++fp16Points;
        }
    }
    std::printf(
        "  %-12s %zu points: %d on the stream (%zu names), %d with values fp16 cannot "
        "hold; %d others in fp16\n",
        c.label, kept.size(), streamPoints, names.size(), inexact, fp16Points);
    EXPECT_GT(streamPoints, 0);
    if (c.names >= 0) EXPECT_EQ(names.size(), size_t(c.names));
    EXPECT_GT(inexact, 0) << "no stream point holds a value that fp16 would have rounded";
    EXPECT_GT(fp16Points, streamPoints / 2);
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, ResidualStreams, ::testing::ValuesIn(kCasesResidualRemedies),
                         [](const auto& info) { return std::string(info.param.label); });

// ---- clamp on an overflowing Qwen-Image DiT --------------------------------------------------

// The MLP outputs' gain of the fixture (see writeTinyQwenImage): the streams grow through the
// blocks, so a residual scale takes them past fp16's range while the embeddings stay inside.
constexpr double kMlpGainResidualRemedies = 16;

// The tiny DiT's inputs: a 4 x 8 token image, 6 text tokens.
NamedTensors qwenImageInputs() {
    torch::manual_seed(3);
    return {{"in.hidden_states", torch::randn({1, 32, 64})},
            {"in.encoder_hidden_states", torch::randn({1, 6, 16})},
            {"in.timestep", torch::tensor({0.8f})},
            {"in.img_shapes", torch::tensor({{1, 4, 8}})}};
}

struct ProbedRun {
    std::vector<ProbeRecord> records;
    std::optional<FirstNonFinite> first;
    torch::Tensor out;
};

// Qwen-Image's block-level stream points (the image stream is the block's own path).
bool isQwenImageStream(const std::string& name) {
    static const std::regex s(R"(transformer\.transformer_blocks\.\d+)"
                              R"((\.context|\.attn_residual|\.context_attn_residual)?)");
    return std::regex_match(name, s);
}

TEST(ResidualRemedies, ClampedQwenImageBlocksKeepTheirStreamsFiniteAndTheOverflowNamed) {
    const std::string root = test::tempDir("residual_clamp");
    const auto family = FamilyRegistry::global().require("QwenImageTransformer2DModel", "test");
    const NamedTensors in = qwenImageInputs();
    auto transformer = [&](const std::string& tag, double scale) {
        const auto f = test::writeTinyQwenImage(root + "/" + tag, scale, kMlpGainResidualRemedies);
        return openFolderComponent(f.folder + "/transformer").source;
    };
    auto run = [&](const ComponentSource& s, const std::string& plan) {
        ProbeContext probes = contextFor(plan, ProbeLevel::Op);
        auto m = loadComponent(*family, s, probes.policy(), "transformer");
        ProbedRun r;
        r.out = m->run(in, probes).at("out.sample");
        r.first = probes.firstNonFinite();
        r.records = probes.takeRecords();
        return r;
    };

    // The scale c: the power of two that takes the blocks' fp32 stream peaks past 2^17.
    const ProbedRun ref = run(transformer("plain", 1.0), "");
    double blocks = 0, embed = 0;
    for (const auto& r : ref.records) {
        if (isQwenImageStream(r.name)) blocks = std::max(blocks, r.stats.absMax);
        if (r.name == "transformer.img_in" || r.name == "transformer.txt_in")
            embed = std::max(embed, r.stats.absMax);
    }
    const double c = std::exp2(std::ceil(std::log2(131072.0 / blocks)));
    std::printf("  residual scale c = %g: img_in/txt_in up to %.4g, block streams up to %.4g\n", c,
                embed * c, blocks * c);
    ASSERT_LT(embed * c, kFp16Max) << "the embeddings must stay inside fp16's range";
    const ComponentSource scaled = transformer("scaled", c);

    // fp16 alone: an overflow inside block 0, Inf on the streams, a non-finite output.
    const ProbedRun bad = run(scaled, "transformer=fp16");
    ASSERT_TRUE(bad.first.has_value());
    const std::string block0 = "transformer.transformer_blocks.0";
    EXPECT_EQ(bad.first->at.name.rfind(block0 + ".", 0), 0u) << bad.first->at.name;
    int badStreams = 0;
    for (const auto& r : bad.records)
        if (isQwenImageStream(r.name) && !r.stats.allFinite()) ++badStreams;
    EXPECT_GT(badStreams, 0);
    EXPECT_FALSE(torch::isfinite(bad.out).all().item<bool>());

    // Both blocks clamped: the same first non-finite point (the overflow is still named where
    // it happens), every stream point of both blocks finite and inside +-65504 (their residual
    // sums too, not only the blocks' outputs), a finite output.
    const ProbedRun clamped = run(scaled,
                                  "transformer=fp16,transformer.transformer_blocks.0=clamp,"
                                  "transformer.transformer_blocks.1=clamp");
    ASSERT_TRUE(clamped.first.has_value());
    EXPECT_EQ(clamped.first->at.name, bad.first->at.name);
    EXPECT_EQ(clamped.first->index, bad.first->index);
    int streams = 0, clampedBad = 0;
    for (const auto& r : clamped.records) {
        if (!isQwenImageStream(r.name)) continue;
        ++streams;
        if (!r.stats.allFinite()) ++clampedBad;
        EXPECT_TRUE(r.stats.allFinite()) << r.name;
        EXPECT_LE(r.stats.absMax, kFp16Max) << r.name;
    }
    EXPECT_EQ(streams, 8);  // 2 blocks x (image, text) x (attention residual, output)
    EXPECT_TRUE(torch::isfinite(clamped.out).all().item<bool>());
    std::printf("  fp16: first non-finite at %s, %d stream points non-finite; clamped: %d\n",
                bad.first->at.name.c_str(), badStreams, clampedBad);

    std::error_code ec;
    std::filesystem::remove_all(root, ec);
}

}  // namespace
}  // namespace hs
