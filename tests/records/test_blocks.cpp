#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diagnosis/blocks.h"
#include "record_fixtures.h"
#include "records/precision_plan.h"

using namespace hs;

TEST(Blocks, ComponentIsTheFirstSegment) {
    EXPECT_EQ(componentOf("transformer.transformer_blocks.3.ff"), "transformer");
    EXPECT_EQ(componentOf("vae"), "vae");
    EXPECT_EQ(componentOf("text_encoder.text_model.embeddings"), "text_encoder");
}

namespace {

// A module name and the block it belongs to, written as the block plus the tail that
// blockOf() must cut off (an empty tail: the module is the block itself).
struct BlockCase {
    const char* block;
    const char* tail;
};

void expectBlocks(const std::vector<BlockCase>& cases) {
    for (const auto& c : cases) {
        const std::string module = std::string(c.block) + c.tail;
        EXPECT_EQ(blockOf(module), c.block) << module;
    }
}

}  // namespace

TEST(Blocks, NumberedAndMidBlocks) {
    expectBlocks({
        {"transformer.transformer_blocks.3", ".ff"},
        {"transformer.transformer_blocks.12", ".attn.to_q"},
        {"transformer.single_transformer_blocks.0", ".proj_out"},
        {"transformer.single_transformer_blocks.0", ""},
        {"vae.decoder.up_blocks.1", ".resnets.0.conv1"},
        {"vae.decoder.mid_block", ".attentions.0.to_q"},
        {"vae.encoder.down_blocks.2", ".downsamplers.0"},
        {"text_encoder.text_model.encoder.layers.5", ".mlp.fc1"},
        {"unet.down_blocks.1", ".attentions.0"},
        {"unet.up_blocks.2", ".resnets.1"},
        {"unet.mid_block", ".resnets.0"},
        {"text_encoder_2.encoder.block.4", ".layer.1"},
    });
}

TEST(Blocks, ComponentLevelModules) {
    expectBlocks({
        {"transformer.x_embedder", ""},
        {"transformer.time_text_embed", ".timestep_embedder.linear_1"},
        {"transformer.norm_out", ".linear"},
        // Not vae.decoder: its rule would also catch the up blocks.
        {"vae.decoder.conv_in", ""},
        {"vae.post_quant_conv", ""},
        {"text_encoder.text_model.embeddings", ".token_embedding"},
        {"vae.decoder", ""},
        {"latents", ""},
    });
    EXPECT_TRUE(isRepeatedBlock("vae.decoder.mid_block"));
    EXPECT_TRUE(isRepeatedBlock("transformer.transformer_blocks.0"));
    EXPECT_FALSE(isRepeatedBlock("transformer.x_embedder"));
    EXPECT_FALSE(isRepeatedBlock("vae.decoder.conv_in"));
}

TEST(Blocks, ABlockRuleCatchesOnlyItsBlock) {
    // The reason blocks are named exactly: "transformer_blocks.1" must not reach block 10.
    PrecisionPlan p;
    p.add("transformer", Format::FP16);
    p.add(blockOf("transformer.transformer_blocks.1.ff"), Format::BF16);
    EXPECT_EQ(p.resolve("transformer.transformer_blocks.1.attn"), Format::BF16);
    EXPECT_EQ(p.resolve("transformer.transformer_blocks.10.attn"), Format::FP16);
    EXPECT_EQ(p.resolve("transformer.transformer_blocks.11"), Format::FP16);
}

TEST(Blocks, BlocksInCallOrderFromARecord) {
    const RunRecord run = test::makeRun();
    const auto t = blocksInCallOrder(run, "transformer");
    const std::vector<std::string> expected = {"transformer.time_text_embed",
                                               "transformer.context_embedder",
                                               "transformer.x_embedder",
                                               "transformer.transformer_blocks.0",
                                               "transformer.transformer_blocks.1",
                                               "transformer.transformer_blocks.2",
                                               "transformer.single_transformer_blocks.0",
                                               "transformer.single_transformer_blocks.1",
                                               "transformer.single_transformer_blocks.2",
                                               "transformer.norm_out",
                                               "transformer.proj_out"};
    EXPECT_EQ(t, expected);
    const auto repeated = blocksInCallOrder(run, "transformer", true);
    ASSERT_EQ(repeated.size(), 6u);
    EXPECT_EQ(repeated.front(), "transformer.transformer_blocks.0");
    EXPECT_EQ(repeated.back(), "transformer.single_transformer_blocks.2");
    const auto vae = blocksInCallOrder(run, "vae", true);
    const std::vector<std::string> vaeExpected = {
        "vae.decoder.mid_block", "vae.decoder.up_blocks.0", "vae.decoder.up_blocks.1",
        "vae.decoder.up_blocks.2", "vae.decoder.up_blocks.3"};
    EXPECT_EQ(vae, vaeExpected);
    const auto te = blocksInCallOrder(run, "text_encoder", true);
    EXPECT_EQ(te.size(), 2u);
    const auto all = blocksInCallOrder(run);
    EXPECT_EQ(all.front(), "text_encoder.text_model.embeddings");
    EXPECT_EQ(all.back(), "vae.decoder.conv_out");
}

TEST(Blocks, DescribeGroupsRanges) {
    EXPECT_EQ(describeBlocks(
                  {"transformer.transformer_blocks.0", "transformer.transformer_blocks.1",
                   "transformer.transformer_blocks.2", "transformer.single_transformer_blocks.1"}),
              "transformer_blocks 0-2, single_transformer_blocks 1");
    EXPECT_EQ(
        describeBlocks({"transformer.transformer_blocks.3", "transformer.transformer_blocks.1",
                        "transformer.transformer_blocks.5", "transformer.transformer_blocks.4"}),
        "transformer_blocks 1,3-5");
    EXPECT_EQ(describeBlocks({"vae.decoder.mid_block", "transformer.x_embedder"}),
              "vae.decoder.mid_block, transformer.x_embedder");
    EXPECT_EQ(describeBlocks({}), "none");
}

TEST(Blocks, AncestorsAreNoCandidates) {
    std::vector<ProbeRecord> probes(4);
    probes[0].name = "vae.decoder.conv_in";
    probes[1].name = "vae.decoder.up_blocks.0.resnets.0";
    probes[2].name = "vae.decoder";  // a probe on the decoder itself
    probes[3].name = "vae.decoder.up_blocks.1";
    const std::vector<std::string> expected = {"vae.decoder.conv_in", "vae.decoder.up_blocks.0",
                                               "vae.decoder.up_blocks.1"};
    EXPECT_EQ(blocksInCallOrder(probes, "vae"), expected);
}
