#include <gtest/gtest.h>

#include "records/precision_plan.h"

using namespace hs;

TEST(PrecisionPlan, ParsesTheDocumentedExample) {
    const std::string text =
        "text_encoder=fp32,transformer=fp16,transformer.single_transformer_blocks.1*=bf16,vae=fp32";
    auto plan = PrecisionPlan::parse(text);
    ASSERT_EQ(plan.rules().size(), 4u);
    EXPECT_EQ(plan.rules()[2].pattern, "transformer.single_transformer_blocks.1*");
    EXPECT_EQ(plan.rules()[2].format, Format::BF16);
    EXPECT_EQ(plan.toString(), text);
    EXPECT_EQ(PrecisionPlan::parse(plan.toString()), plan);
}

TEST(PrecisionPlan, LastMatchingRuleWins) {
    auto plan = PrecisionPlan::parse(
        "transformer=fp16,transformer.single_transformer_blocks.1*=bf16,vae=fp32");
    EXPECT_EQ(plan.resolve("transformer.transformer_blocks.3.ff"), Format::FP16);
    EXPECT_EQ(plan.resolve("transformer.single_transformer_blocks.1.attn"), Format::BF16);
    EXPECT_EQ(plan.resolve("transformer.single_transformer_blocks.12"), Format::BF16);
    EXPECT_EQ(plan.resolve("transformer.single_transformer_blocks.2"), Format::FP16);
    EXPECT_EQ(plan.resolve("vae.decoder.mid_block"), Format::FP32);
    EXPECT_FALSE(plan.resolve("text_encoder.text_model").has_value());
    EXPECT_EQ(plan.resolve("text_encoder", Format::BF16), Format::BF16);
    // A later general rule overrides an earlier specific one.
    auto p2 = PrecisionPlan::parse("transformer.x=bf16,transformer=fp16");
    EXPECT_EQ(p2.resolve("transformer.x.y"), Format::FP16);
}

TEST(PrecisionPlan, PrefixRulesMatchWholeSegmentsOnly) {
    auto plan = PrecisionPlan::parse("transformer=fp16,vae.decoder.up_blocks.1=bf16");
    EXPECT_FALSE(plan.resolve("transformers.x").has_value());
    EXPECT_EQ(plan.resolve("vae.decoder.up_blocks.1.resnets.0"), Format::BF16);
    EXPECT_FALSE(plan.resolve("vae.decoder.up_blocks.10").has_value());
}

TEST(PrecisionPlan, WildcardsMatchInsideAndAcrossDots) {
    EXPECT_TRUE(pathMatches("transformer.*.attn", "transformer.transformer_blocks.3.attn.to_q"));
    EXPECT_FALSE(pathMatches("transformer.*.attn", "transformer.transformer_blocks.3.ff"));
    EXPECT_TRUE(globMatch("*", ""));
    EXPECT_TRUE(globMatch("a*b*c", "aXXbYYc"));
    EXPECT_FALSE(globMatch("a*b*c", "aXXbYY"));
}

TEST(PrecisionPlan, EmptyTextIsAnEmptyPlanAndSpacesAreTolerated) {
    EXPECT_TRUE(PrecisionPlan::parse("").empty());
    EXPECT_TRUE(PrecisionPlan::parse("   ").empty());
    auto p = PrecisionPlan::parse(" vae = FP16 , transformer=bfloat16");
    EXPECT_EQ(p.toString(), "vae=fp16,transformer=bf16");
}

namespace {
void expectError(const std::string& text, size_t rule, size_t pos, const std::string& what) {
    try {
        PrecisionPlan::parse(text);
        FAIL() << "no error for '" << text << "'";
    } catch (const PlanParseError& e) {
        EXPECT_EQ(e.ruleIndex(), rule) << text;
        EXPECT_EQ(e.position(), pos) << text;
        EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("character " + std::to_string(pos + 1)),
                  std::string::npos)
            << e.what();
    }
}
}  // namespace

TEST(PrecisionPlan, ErrorsNameThePosition) {
    expectError("vae=fp16,transformer=fp8", 1, 21, "unknown format 'fp8'");
    expectError("vae=fp16,transformer", 1, 9, "missing '='");
    expectError("vae=fp16,,x=bf16", 1, 9, "empty rule");
    expectError("=fp16", 0, 0, "empty module pattern");
    expectError("va e=fp16", 0, 2, "invalid character ' '");
    expectError("vae=fp16,", 1, 9, "empty rule");
    expectError("vae=", 0, 4, "unknown format ''");
}

TEST(PrecisionPlan, SetReplacesARuleOfTheSamePatternWithoutChangingTheMeaning) {
    auto p =
        PrecisionPlan::parse("transformer=bf16,vae=bf16,transformer.transformer_blocks.2=fp32");
    auto q = p;
    q.add("transformer", Format::FP16);
    p.set("transformer", Format::FP16);
    EXPECT_EQ(p.toString(), "vae=bf16,transformer.transformer_blocks.2=fp32,transformer=fp16");
    for (const char* path :
         {"transformer.x_embedder", "transformer.transformer_blocks.2.ff", "vae.decoder"})
        EXPECT_EQ(p.resolve(path), q.resolve(path)) << path;
}

TEST(PrecisionPlan, ClampRulesAreRemediesBesideTheFormats) {
    const auto p =
        PrecisionPlan::parse("text_encoder_2=fp16, text_encoder_2.encoder.block.1*=clamp,vae=fp32");
    ASSERT_EQ(p.rules().size(), 2u);
    ASSERT_EQ(p.remedies().size(), 1u);
    EXPECT_EQ(p.remedies()[0].pattern, "text_encoder_2.encoder.block.1*");
    EXPECT_TRUE(p.clamps("text_encoder_2.encoder.block.1.layer.0"));
    EXPECT_TRUE(p.clamps("text_encoder_2.encoder.block.12"));
    EXPECT_FALSE(p.clamps("text_encoder_2.encoder.block.2"));
    EXPECT_EQ(p.resolve("text_encoder_2.encoder.block.1"), Format::FP16);  // formats unchanged
    EXPECT_EQ(p.toString(), "text_encoder_2=fp16,vae=fp32,text_encoder_2.encoder.block.1*=clamp");
    EXPECT_EQ(PrecisionPlan::parse(p.toString()), p);
    EXPECT_FALSE(PrecisionPlan::parse("a=clamp").empty());
    EXPECT_FALSE(PrecisionPlan::parse("a=fp16,b=clamp") == PrecisionPlan::parse("a=fp16"));
    // The pipeline's plan keeps the user's remedies after the stored formats.
    const auto eff = effectivePlan({{"text_encoder_2", Format::BF16}}, p);
    EXPECT_TRUE(eff.clamps("text_encoder_2.encoder.block.1"));
    EXPECT_EQ(eff.resolve("text_encoder_2"), Format::FP16);
    expectError("a=fp16,b=clip", 1, 9, "a remedy: clamp, scale:K, fp32-residual, keep-fp32, or fp8 weights");
}

TEST(PrecisionPlan, ScaleFp32ResidualAndKeepFp32RulesParseAndComposeWithFormats) {
    const auto p = PrecisionPlan::parse(
        "transformer=fp16,transformer.blocks.0.ff.net.2=scale:5,transformer.blocks.*=fp32-residual,"
        "text_encoder.encoder.block.*.wo=keep-fp32,transformer.blocks.0=scale:3");
    // keep-fp32 is a format rule (fp32), the others are remedies beside the formats.
    ASSERT_EQ(p.rules().size(), 2u);
    EXPECT_EQ(p.resolve("text_encoder.encoder.block.4.wo"), Format::FP32);
    EXPECT_EQ(p.resolve("transformer.blocks.0.ff.net.2"), Format::FP16);
    // The last scale rule that matches a path or an ancestor wins.
    EXPECT_EQ(p.scaleBits("transformer.blocks.0.ff.net.2"), 3);
    EXPECT_EQ(p.scaleBits("transformer.blocks.0.attn"), 3);
    EXPECT_EQ(p.scaleBits("transformer.blocks.1.ff.net.2"), 0);
    EXPECT_TRUE(p.keepsResidualFp32("transformer.blocks.7"));
    EXPECT_FALSE(p.keepsResidualFp32("transformer.proj_out"));
    EXPECT_EQ(p.toString(),
              "transformer=fp16,text_encoder.encoder.block.*.wo=fp32,"
              "transformer.blocks.0.ff.net.2=scale:5,transformer.blocks.*=fp32-residual,"
              "transformer.blocks.0=scale:3");
    EXPECT_EQ(PrecisionPlan::parse(p.toString()), p);
    EXPECT_FALSE(PrecisionPlan::parse("a=scale:2") == PrecisionPlan::parse("a=scale:3"));
    // A clamp names a module's own output; the residual streams inside it follow clamps().
    const auto c = PrecisionPlan::parse("transformer.blocks.1=clamp");
    EXPECT_TRUE(c.clampsOutputOf("transformer.blocks.1"));
    EXPECT_FALSE(c.clampsOutputOf("transformer.blocks.1.ff"));
    EXPECT_TRUE(c.clamps("transformer.blocks.1.ff"));
    // Remedies reach the pipeline's plan.
    EXPECT_EQ(effectivePlan({{"transformer", Format::BF16}}, p).scaleBits("transformer.blocks.0"),
              3);
}

TEST(PrecisionPlan, BadRemedyRulesAreNamed) {
    expectError("a=fp16,b=scale:0", 1, 15, "K from 1 to 24");
    expectError("a=scale:25", 0, 8, "K from 1 to 24");
    expectError("a=scale:x", 0, 8, "not 'x'");
    expectError("a=scale:", 0, 8, "K from 1 to 24");
    expectError("a=fp32_residual", 0, 2, "fp32-residual");
}
