#include <gtest/gtest.h>

#include "diagnosis/blocks.h"
#include "records/precision_plan.h"
#include "record_fixtures.h"

using namespace hs;

TEST(Blocks, ComponentIsTheFirstSegment) {
    EXPECT_EQ(componentOf("transformer.transformer_blocks.3.ff"), "transformer");
    EXPECT_EQ(componentOf("vae"), "vae");
    EXPECT_EQ(componentOf("text_encoder.text_model.embeddings"), "text_encoder");
}

TEST(Blocks, NumberedAndMidBlocks) {
    EXPECT_EQ(blockOf("transformer.transformer_blocks.3.ff"), "transformer.transformer_blocks.3");
    EXPECT_EQ(blockOf("transformer.transformer_blocks.12.attn.to_q"),
              "transformer.transformer_blocks.12");
    EXPECT_EQ(blockOf("transformer.single_transformer_blocks.0.proj_out"),
              "transformer.single_transformer_blocks.0");
    EXPECT_EQ(blockOf("transformer.single_transformer_blocks.0"),
              "transformer.single_transformer_blocks.0");
    EXPECT_EQ(blockOf("vae.decoder.up_blocks.1.resnets.0.conv1"), "vae.decoder.up_blocks.1");
    EXPECT_EQ(blockOf("vae.decoder.mid_block.attentions.0.to_q"), "vae.decoder.mid_block");
    EXPECT_EQ(blockOf("vae.encoder.down_blocks.2.downsamplers.0"), "vae.encoder.down_blocks.2");
    EXPECT_EQ(blockOf("text_encoder.text_model.encoder.layers.5.mlp.fc1"),
              "text_encoder.text_model.encoder.layers.5");
    EXPECT_EQ(blockOf("unet.down_blocks.1.attentions.0"), "unet.down_blocks.1");
    EXPECT_EQ(blockOf("unet.up_blocks.2.resnets.1"), "unet.up_blocks.2");
    EXPECT_EQ(blockOf("unet.mid_block.resnets.0"), "unet.mid_block");
    EXPECT_EQ(blockOf("text_encoder_2.encoder.block.4.layer.1"), "text_encoder_2.encoder.block.4");
}

TEST(Blocks, ComponentLevelModules) {
    EXPECT_EQ(blockOf("transformer.x_embedder"), "transformer.x_embedder");
    EXPECT_EQ(blockOf("transformer.time_text_embed.timestep_embedder.linear_1"),
              "transformer.time_text_embed");
    EXPECT_EQ(blockOf("transformer.norm_out.linear"), "transformer.norm_out");
    // Not vae.decoder: its rule would also catch the up blocks.
    EXPECT_EQ(blockOf("vae.decoder.conv_in"), "vae.decoder.conv_in");
    EXPECT_EQ(blockOf("vae.post_quant_conv"), "vae.post_quant_conv");
    EXPECT_EQ(blockOf("text_encoder.text_model.embeddings.token_embedding"),
              "text_encoder.text_model.embeddings");
    EXPECT_EQ(blockOf("vae.decoder"), "vae.decoder");
    EXPECT_EQ(blockOf("latents"), "latents");
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
