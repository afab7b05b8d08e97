// Short titles of compared precision plans (records/plan_titles.h): each title names only what
// differs between the plans, equal titles are numbered, and the words can be translated.
#include <gtest/gtest.h>

#include "records/plan_titles.h"

using namespace hs;

namespace {

std::vector<std::string> titles(const std::vector<std::string>& texts,
                                const PlanTitleOptions& words = {}) {
    std::vector<PrecisionPlan> plans;
    for (const auto& t : texts) plans.push_back(PrecisionPlan::parse(t));
    return planTitles(plans, words);
}

using Titles = std::vector<std::string>;

const std::string kAllBf16 = "text_encoder=bf16,transformer=bf16,vae=bf16";
const std::string kAllFp16 = "text_encoder=fp16,transformer=fp16,vae=fp16";

}  // namespace

TEST(PlanTitles, AllBf16AgainstAllFp16NamesTheFormatsOnly) {
    EXPECT_EQ(titles({kAllBf16, kAllFp16}), (Titles{"bf16", "fp16"}));
}

TEST(PlanTitles, StoredDtypesAgainstOneModuleInFp16) {
    EXPECT_EQ(titles({"", "transformer=fp16"}), (Titles{"stored dtypes", "transformer fp16"}));
}

TEST(PlanTitles, TwoModulesInFp16NameTheirOwnModule) {
    EXPECT_EQ(titles({"transformer=fp16", "vae=fp16"}), (Titles{"transformer fp16", "vae fp16"}));
}

TEST(PlanTitles, CommonRulesAreLeftOut) {
    // text_encoder=fp32 is in both: it names nothing that differs.
    EXPECT_EQ(titles({"text_encoder=fp32,transformer=bf16,vae=bf16",
                      "text_encoder=fp32,transformer=fp16,vae=bf16"}),
              (Titles{"transformer bf16", "transformer fp16"}));
}

TEST(PlanTitles, FourPlansOneModuleAtATime) {
    EXPECT_EQ(titles({"", "text_encoder=fp16", "transformer=fp16", "vae=fp16"}),
              (Titles{"stored dtypes", "text_encoder fp16", "transformer fp16", "vae fp16"}));
}

TEST(PlanTitles, FourPlansWithFormatsAndRemedies) {
    const std::string base = "text_encoder=bf16,transformer=fp16,vae=bf16";
    EXPECT_EQ(titles({base, base + ",transformer=clamp", base + ",transformer=scale:5",
                      base + ",transformer=fp32-residual"}),
              (Titles{"transformer fp16", "transformer fp16 + clamp", "transformer fp16 + scale:5",
                      "transformer fp16 + fp32-residual"}));
}

TEST(PlanTitles, RemediesNameOnlyTheDifferingOption) {
    // clamp is common; only the scale differs.
    const std::string base = "transformer=fp16,transformer=clamp";
    EXPECT_EQ(titles({base + ",transformer=scale:3", base + ",transformer=scale:8"}),
              (Titles{"transformer fp16 + scale:3", "transformer fp16 + scale:8"}));
}

TEST(PlanTitles, ARemedyOnAModuleWithoutAFormatRule) {
    EXPECT_EQ(titles({"vae=fp16,transformer=clamp", "vae=fp16,transformer=scale:4"}),
              (Titles{"transformer clamp", "transformer scale:4"}));
}

TEST(PlanTitles, ModulesWithTheSameFormatShareIt) {
    EXPECT_EQ(titles({"", "text_encoder=fp16,vae=fp16"}),
              (Titles{"stored dtypes", "text_encoder, vae fp16"}));
    EXPECT_EQ(titles({kAllBf16, "text_encoder=fp16,transformer=bf16,vae=fp16"}),
              (Titles{"text_encoder, vae bf16", "text_encoder, vae fp16"}));
}

TEST(PlanTitles, TheFormatAloneOnlyForTheWholeModel) {
    // Without the components, "the whole model" is what every plan names.
    EXPECT_EQ(titles({kAllFp16, "transformer=bf16"}),
              (Titles{"text_encoder, transformer, vae fp16", "transformer bf16"}));
    PlanTitleOptions model;
    model.components = {"text_encoder", "transformer", "vae"};
    EXPECT_EQ(titles({kAllFp16, "transformer=bf16"}, model), (Titles{"fp16", "transformer bf16"}));
    EXPECT_EQ(titles({kAllBf16, kAllFp16}, model), (Titles{"bf16", "fp16"}));
    // Two of three components in fp16 is not "fp16".
    EXPECT_EQ(titles({"", "text_encoder=fp16,vae=fp16"}, model),
              (Titles{"stored dtypes", "text_encoder, vae fp16"}));
    // A remedy makes it more than a format.
    EXPECT_EQ(titles({kAllFp16, kAllFp16 + ",vae=clamp"}, model),
              (Titles{"vae fp16", "vae fp16 + clamp"}));
}

TEST(PlanTitles, MixedFormatsAreGroupedPerFormat) {
    EXPECT_EQ(titles({kAllFp16, "text_encoder=bf16,transformer=fp32,vae=bf16"}),
              (Titles{"fp16", "text_encoder, vae bf16; transformer fp32"}));
}

TEST(PlanTitles, APlanWithoutTheDifferingEntryNamesWhatStaysStored) {
    EXPECT_EQ(titles({"transformer=fp16", "transformer=fp16,vae=fp16"}),
              (Titles{"vae stored", "vae fp16"}));
}

TEST(PlanTitles, IdenticalPlansAreNumbered) {
    EXPECT_EQ(titles({"transformer=fp16", "transformer=fp16"}),
              (Titles{"transformer fp16 #1", "transformer fp16 #2"}));
    EXPECT_EQ(titles({"", ""}), (Titles{"stored dtypes #1", "stored dtypes #2"}));
    EXPECT_EQ(titles({kAllFp16, kAllFp16, kAllFp16}), (Titles{"fp16 #1", "fp16 #2", "fp16 #3"}));
}

TEST(PlanTitles, OnlyTheRepeatedPlansAreNumbered) {
    EXPECT_EQ(titles({"vae=fp16", "transformer=fp16", "vae=fp16", ""}),
              (Titles{"vae fp16 #1", "transformer fp16", "vae fp16 #2", "stored dtypes"}));
}

TEST(PlanTitles, TheLastRuleOfAPatternIsItsFormat) {
    // A later rule with the same pattern overrides the earlier one for every path.
    EXPECT_EQ(titles({"transformer=bf16,transformer=fp16", "transformer=bf16"}),
              (Titles{"transformer fp16", "transformer bf16"}));
    EXPECT_EQ(titles({"transformer=bf16,transformer=fp16", "transformer=fp16"}),
              (Titles{"transformer fp16 #1", "transformer fp16 #2"}));
}

TEST(PlanTitles, FinePatternsKeepTheirName) {
    EXPECT_EQ(titles({kAllFp16, kAllFp16 + ",transformer.single_transformer_blocks.1*=fp32"}),
              (Titles{"transformer.single_transformer_blocks.1* stored",
                      "transformer.single_transformer_blocks.1* fp32"}));
}

TEST(PlanTitles, WordsCanBeTranslated) {
    PlanTitleOptions zh;
    zh.storedDtypes = "存储精度";
    zh.stored = "存储";
    EXPECT_EQ(titles({"", "vae=fp16"}, zh), (Titles{"存储精度", "vae fp16"}));
    EXPECT_EQ(titles({"vae=bf16", "vae=bf16,transformer=fp16"}, zh),
              (Titles{"transformer 存储", "transformer fp16"}));
}

TEST(PlanTitles, NoPlansOrOnePlan) {
    EXPECT_TRUE(planTitles({}).empty());
    EXPECT_EQ(titles({"transformer=fp16,transformer=clamp"}), (Titles{"transformer fp16 + clamp"}));
    // Alone, nothing says the plan covers the whole model.
    EXPECT_EQ(titles({kAllBf16}), (Titles{"text_encoder, transformer, vae bf16"}));
}

TEST(PlanSummary, TheWholePlanShort) {
    EXPECT_EQ(planSummary(PrecisionPlan()), "stored dtypes");
    EXPECT_EQ(planSummary(PrecisionPlan::parse(kAllFp16)), "text_encoder, transformer, vae fp16");
    PlanTitleOptions model;
    model.components = {"text_encoder", "transformer", "vae"};
    EXPECT_EQ(planSummary(PrecisionPlan::parse(kAllFp16), model), "fp16");
    EXPECT_EQ(planSummary(PrecisionPlan::parse("transformer=fp16")), "transformer fp16");
    EXPECT_EQ(planSummary(PrecisionPlan::parse(
                  "text_encoder=bf16,transformer=fp16,vae=bf16,transformer=clamp")),
              "text_encoder, vae bf16; transformer fp16 + clamp");
}

// Plans shown or suggested are normalised: one rule per path, the last one wins, remedies kept.
TEST(PlanNormalised, KeepsOnlyTheRulesThatCanWin) {
    const auto p = PrecisionPlan::parse(
        "text_encoder=bf16,transformer=fp16,vae=fp16,transformer.transformer_blocks.1=fp32,"
        "transformer=bf16,vae.decoder.up_blocks.2=fp32,transformer=clamp,"
        "transformer.blocks.0.ff=scale:5,transformer.blocks.0=scale:3,a=fp8-e4m3,a=fp8-e5m2");
    EXPECT_EQ(p.normalisedText(),
              "text_encoder=bf16,vae=fp16,transformer=bf16,vae.decoder.up_blocks.2=fp32,"
              "transformer=clamp,transformer.blocks.0=scale:3,a=fp8-e5m2");
    EXPECT_EQ(PrecisionPlan::parse("transformer=fp16,transformer=bf16").normalisedText(),
              "transformer=bf16");
    // A glob covers the rules it matches; a finer rule after a broader one stays.
    EXPECT_EQ(PrecisionPlan::parse("t.b.1=fp32,t.b.*=bf16,t.b.2=fp32").normalisedText(),
              "t.b.*=bf16,t.b.2=fp32");
    // The meaning does not change.
    for (const char* path : {"transformer.transformer_blocks.1.ff", "vae.decoder.up_blocks.2",
                             "vae.encoder", "text_encoder.x", "transformer.blocks.0.ff.net"}) {
        EXPECT_EQ(p.normalised().resolve(path), p.resolve(path)) << path;
        EXPECT_EQ(p.normalised().scaleBits(path), p.scaleBits(path)) << path;
        EXPECT_EQ(p.normalised().clamps(path), p.clamps(path)) << path;
    }
    EXPECT_EQ(p.normalised().fp8Weights("a.w"), p.fp8Weights("a.w"));
    EXPECT_EQ(p.toString().substr(0, 34), "text_encoder=bf16,transformer=fp16");  // as given
}
