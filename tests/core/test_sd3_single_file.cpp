// Stability AI's single-file layout of the SD3 transformer (sd3_medium.safetensors,
// sd3.5_*.safetensors): SD3.5's golden written so, with and without ComfyUI's prefix, is detected,
// converted back to the golden's config and weights and gives its output; a file with a key
// missing, misshapen or unknown is refused naming the file's key.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "golden_helpers.h"
#include "families/sd3/sd3_transformer.h"
#include "models/single_file.h"
#include "sd3_fixture.h"
#include "single_file_helpers.h"
#include "test_util.h"

namespace hs {
namespace {

using test::contextFor;
using test::expectThrowNaming;
using test::keysOf;
using test::relErr;

test::ModelCase goldenSingleFileSd3(const std::string& label) {
    return test::openCase("golden/" + label, "golden/" + label + "_io.safetensors");
}

// A diffusers state dict in the layout of Stability's sd3_medium.safetensors /
// sd3.5_*.safetensors under `prefix`, every key used.
WeightMap stabilityFileOf(const WeightMap& w, const std::string& prefix) {
    std::set<std::string> unused;
    WeightMap o;
    for (auto& [key, t] : test::sd3ToStability(w, 2, &unused)) o.emplace(prefix + key, t);
    EXPECT_TRUE(unused.empty()) << unused.size() << " keys left out of the original layout";
    return o;
}

TEST(SD3TransformerSingleFile, StabilityLayoutReproducesTheGolden) {
    const test::ModelCase g = goldenSingleFileSd3("sd35");
    const SD3Config golden = SD3Config::fromJson(g.config);
    for (const std::string prefix : {"model.diffusion_model.", ""}) {
        SCOPED_TRACE("prefix '" + prefix + "'");
        const WeightMap file = stabilityFileOf(g.weights, prefix);
        const auto names = detectSingleFile(file);
        ASSERT_EQ(names.size(), 1u);
        EXPECT_EQ(names[0].rfind("SD3 MMDiT (", 0), 0u) << names[0];
        const SingleFileContents f = convertSingleFile(file, "sd35.safetensors");
        ASSERT_TRUE(test::holdsOneComponent(f, "transformer", "SD3Transformer2DModel"));
        const ConvertedComponent& c = f.components[0];
        std::printf("  %s\n", c.description.c_str());
        const SD3Config inferred = SD3Config::fromJson(c.config);
        EXPECT_EQ(inferred.patchSize, golden.patchSize);
        EXPECT_EQ(inferred.inChannels, golden.inChannels);
        EXPECT_EQ(inferred.outChannels, golden.outChannels);
        EXPECT_EQ(inferred.numLayers, golden.numLayers);
        EXPECT_EQ(inferred.attentionHeadDim, golden.attentionHeadDim);
        EXPECT_EQ(inferred.numAttentionHeads, golden.numAttentionHeads);
        EXPECT_EQ(inferred.jointAttentionDim, golden.jointAttentionDim);
        EXPECT_EQ(inferred.captionProjectionDim, golden.captionProjectionDim);
        EXPECT_EQ(inferred.pooledProjectionDim, golden.pooledProjectionDim);
        EXPECT_EQ(inferred.posEmbedMaxSize, golden.posEmbedMaxSize);
        EXPECT_EQ(inferred.dualAttentionLayers, golden.dualAttentionLayers);
        EXPECT_EQ(inferred.qkRmsNorm, golden.qkRmsNorm);
        ASSERT_EQ(keysOf(c.weights), keysOf(g.weights));
        for (const auto& kv : g.weights)
            EXPECT_TRUE(torch::equal(c.weights.at(kv.first), kv.second)) << kv.first;

        ProbeContext probes = contextFor("", ProbeLevel::Layer);
        const ComponentSource source = sourceOf(c, "sd35.safetensors");
        auto m = test::loadSd3Transformer(source.config, source.weights, probes);
        const double err =
            relErr(m->run(test::onlyInputs(g.io), probes).at("out.sample"), g.io.at("out.sample"));
        std::printf("  sd35 from the Stability layout: rel err %.3e\n", err);
        EXPECT_LE(err, 1e-4);
    }
}

TEST(SD3TransformerSingleFile, ErrorsNameTheFileKey) {
    const std::string p = "model.diffusion_model.";
    const WeightMap good = stabilityFileOf(goldenSingleFileSd3("sd35").weights, p);
    auto expectError = [&](const WeightMap& file, const std::vector<std::string>& needles) {
        expectThrowNaming<WeightError>([&] { convertSingleFile(file, "sd3x.safetensors"); },
                                       needles);
    };
    auto f = good;
    f.erase(p + "joint_blocks.1.context_block.attn.ln_k.weight");
    expectError(f, {"sd3x.safetensors", p + "joint_blocks.1.context_block.attn.ln_k.weight"});
    f = good;
    f[p + "joint_blocks.0.x_block.attn.qkv.weight"] = torch::zeros({95, 32});
    expectError(f, {p + "joint_blocks.0.x_block.attn.qkv.weight", "96 rows"});
    f = good;
    f[p + "joint_blocks.0.x_block.mystery.weight"] = torch::zeros({2});
    expectError(f, {p + "joint_blocks.0.x_block.mystery.weight"});
    f = good;
    f[p + "pos_embed"] = torch::zeros({1, 90, 32});
    expectError(f, {p + "pos_embed", "square"});
    // SD3's golden has no qk-norm, so 64-wide heads are assumed; its width 32 is not a multiple.
    expectError(stabilityFileOf(goldenSingleFileSd3("sd3").weights, p),
                {p + "x_embedder.proj.weight", "64"});
}

}  // namespace
}  // namespace hs
