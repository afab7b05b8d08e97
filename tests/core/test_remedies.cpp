// The remedy plan rules (clamp, scale:K, fp32-residual) as the precision policy applies them,
// and the ranked remedy search on the shipped demo model.
#include <gtest/gtest.h>

#include <cmath>

#include "diagnosis/blocks.h"
#include "diagnosis/remedies.h"
#include "numerics/precision_policy.h"
#include "pipeline/pipeline.h"
#include "pipeline/precision_search.h"
#include "remedy_helpers.h"
#include "report/html_report.h"
#include "report/report_json.h"
#include "runtime/demo_location.h"

using namespace hs;

namespace {

torch::Tensor stored(const std::string& plan, const std::string& path, const torch::Tensor& x,
                     bool residual = false) {
    const PrecisionPolicy policy(PrecisionPlan::parse(plan), torch::Device(torch::kCPU));
    return policy.store(path, x, residual);
}

RunRecord runDemoRemedies(const std::string& plan, int steps = 3) {
    const std::string dir = findDemoModel();
    EXPECT_FALSE(dir.empty()) << "resources/demo-model is missing";
    auto p = Pipeline::load(dir, PrecisionPlan::parse(plan), torch::Device(torch::kCPU));
    RunConfig cfg;
    cfg.prompt = "a large white circle on the left, red background";
    cfg.seed = 2;
    cfg.steps = steps;
    return p->run(cfg);
}

bool latentsFinite(const RunRecord& r) {
    for (const auto& s : r.steps)
        if (!s.latent.allFinite()) return false;
    return true;
}

}  // namespace

TEST(RemedyRules, ScaleWidensTheRangeExactlyAndClampClipsToTheFormat) {
    const auto x = torch::tensor({70000.0f, -3.0e5f, 1.0f / 3, 1e-7f, NAN});
    // Plain fp16: past 65504 is Inf.
    auto fp16 = stored("m=fp16", "m.ff", x);
    EXPECT_TRUE(std::isinf(fp16[0].item<float>()));
    // scale:3 holds up to 65504 * 8 with fp16's relative precision: 70000 -> 70016 (fp16 of 8750)
    auto scaled = stored("m=fp16,m=scale:3", "m.ff", x);
    EXPECT_FLOAT_EQ(scaled[0].item<float>(), 70016.0f);
    EXPECT_FLOAT_EQ(scaled[1].item<float>(), -300032.0f);
    EXPECT_FLOAT_EQ(scaled[2].item<float>(), fp16[2].item<float>());  // same relative rounding
    EXPECT_TRUE(std::isnan(scaled[4].item<float>()));
    // In fp32 a scale rule changes no bit.
    EXPECT_TRUE(torch::equal(stored("m=fp32,m=scale:7", "m.ff", x).nan_to_num(0), x.nan_to_num(0)));
    // clamp: the module's own output, and residual streams inside it; NaN stays NaN.
    auto clamped = stored("m=fp16,m.ff=clamp", "m.ff", x);
    EXPECT_FLOAT_EQ(clamped[0].item<float>(), 65504.0f);
    EXPECT_FLOAT_EQ(clamped[1].item<float>(), -65504.0f);
    EXPECT_TRUE(std::isnan(clamped[4].item<float>()));
    EXPECT_TRUE(std::isinf(stored("m=fp16,m=clamp", "m.ff", x)[0].item<float>()));  // inner op
    EXPECT_FLOAT_EQ(stored("m=fp16,m=clamp", "m.ff", x, true)[0].item<float>(), 65504.0f);
    // Composed: a clamp under scale:K clips at the widened range; bf16's range is far larger.
    EXPECT_FLOAT_EQ(stored("m=fp16,m=scale:1,m=clamp", "m", x)[1].item<float>(), -131008.0f);
    EXPECT_FLOAT_EQ(stored("m=bf16,m=clamp", "m", x)[1].item<float>(), -299008.0f);
    // fp32-residual: residual values stay fp32, the rest is stored in the format.
    const auto third = torch::tensor({1.0f / 3});
    EXPECT_EQ(stored("m=fp16,m=fp32-residual", "m.x", third, true).item<float>(), 1.0f / 3);
    EXPECT_NE(stored("m=fp16,m=fp32-residual", "m.x", third, false).item<float>(), 1.0f / 3);
}

TEST(RemedyRules, ScaleAndFp32ResidualRunEmulatedAndLeaveOtherModulesAlone) {
    const PrecisionPolicy p(
        PrecisionPlan::parse("t=bf16,t.blocks.0=scale:2,t.blocks.1=fp32-residual,u=fp16"),
        torch::Device(torch::kCPU), Execution::Native);
    EXPECT_EQ(p.executionFor("t.blocks.0.ff"), Execution::Emulated);
    EXPECT_EQ(p.executionFor("t.blocks.1.attn"), Execution::Emulated);
    EXPECT_EQ(p.executionFor("t.blocks.2"), Execution::Native);
    EXPECT_EQ(p.computeTypeFor("t.blocks.0.ff"), torch::kFloat32);
    EXPECT_EQ(p.storedFormat("t.blocks.1.attn_residual", true), Format::FP32);
    EXPECT_EQ(p.storedFormat("t.blocks.1.attn", false), Format::BF16);
    // diffusers' fp16 clip of a block's stream does nothing where the stream is fp32.
    const PrecisionPolicy q(PrecisionPlan::parse("t=fp16,t.blocks.1=fp32-residual"),
                            torch::Device(torch::kCPU));
    const auto big = torch::tensor({1e6f});
    EXPECT_EQ(q.fp16ResidualClip("t.blocks.1", big).item<float>(), 1e6f);
    EXPECT_EQ(q.fp16ResidualClip("t.blocks.0", big).item<float>(), 65504.0f);
}

TEST(RemedyRules, ScaleIsBitExactInFp32OnTheDemoModel) {
    const RunRecord plain = runDemoRemedies("transformer=fp32,vae=fp32,text_encoder=fp32", 2);
    const RunRecord scaled = runDemoRemedies(
        "transformer=fp32,vae=fp32,text_encoder=fp32,transformer=scale:7,vae=scale:3", 2);
    ASSERT_TRUE(plain.savedImage && scaled.savedImage);
    EXPECT_EQ(plain.savedImage->rgb, scaled.savedImage->rgb);
    ASSERT_EQ(plain.steps.size(), scaled.steps.size());
    for (size_t i = 0; i < plain.steps.size(); ++i) {
        EXPECT_EQ(plain.steps[i].latent.min, scaled.steps[i].latent.min);
        EXPECT_EQ(plain.steps[i].latent.max, scaled.steps[i].latent.max);
    }
}

TEST(RemedyRules, ClampTurnsTheDemosFp16NanIntoAFiniteImage) {
    const RunRecord broken = runDemoRemedies("transformer=fp16");
    ASSERT_FALSE(latentsFinite(broken));
    const RunRecord bf16 = runDemoRemedies("");
    const RunRecord clamped = runDemoRemedies("transformer=fp16,transformer=clamp");
    EXPECT_TRUE(latentsFinite(clamped));
    EXPECT_EQ(clamped.verdict, "ok");
    ASSERT_TRUE(clamped.savedImage && bf16.savedImage);
    const double d = imageDifference(*clamped.savedImage, *bf16.savedImage);
    std::cout << "[ demo fp16 + clamp ] image difference to bf16 " << d << "\n";
    EXPECT_LT(d, 0.1);  // the broken run is about 0.47 away
    // The rules compose with formats in any order: the remedies act on the resolved format.
    const RunRecord reordered = runDemoRemedies("transformer=clamp,transformer=fp16");
    EXPECT_EQ(reordered.savedImage->rgb, clamped.savedImage->rgb);
    // A clamp on another component changes nothing here.
    EXPECT_FALSE(latentsFinite(runDemoRemedies("transformer=fp16,vae=clamp")));
}

TEST(RemedySearch, RanksEveryRemedyOnTheDemoAndTheReportCarriesTheTable) {
    RunConfig cfg = test::demoFp16Failure();
    PrecisionSearchOptions o;
    o.trialSteps = 3;
    o.remedies = {RemedyKind::Clamp, RemedyKind::Scale, RemedyKind::Fp32Residual};
    o.target = targetGpu("t4");
    int seen = 0;
    o.onRemedy = [&](const RemedyRow&) { ++seen; };
    const PrecisionSearch s = searchPrecision(cfg, o);
    ASSERT_TRUE(s.planFails);
    EXPECT_TRUE(s.result.trials.empty());  // no format in the list: no bisection
    ASSERT_TRUE(s.remedies);
    const RemedyTable& t = *s.remedies;
    ASSERT_EQ(t.failingBlocks.size(), 1u);
    EXPECT_EQ(componentOf(t.failingBlocks[0]), "transformer");
    ASSERT_EQ(t.rows.size(), 6u);  // 3 remedies x (the failing block, the whole transformer)
    EXPECT_EQ(seen, 6);
    EXPECT_TRUE(t.anyPassed()) << t.message;
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const RemedyRow& r = t.rows[i];
        EXPECT_EQ(r.rank, int(i) + 1);
        EXPECT_FALSE(r.cost.empty());
        if (i > 0 && r.passed) EXPECT_TRUE(t.rows[i - 1].passed) << "a failing row ranks higher";
        if (r.passed) {
            EXPECT_LE(r.outcome.difference, o.tolerance);
            EXPECT_GT(r.psnr, 20.0);
        }
    }
    EXPECT_NE(t.target.find("T4"), std::string::npos) << t.target;
    EXPECT_NE(t.message.find("fixes the run"), std::string::npos) << t.message;
    // The best row's plan runs clean.
    auto p = Pipeline::load(cfg.modelDir, t.rows[0].candidate.plan, torch::Device(torch::kCPU));
    cfg.steps = 3;
    EXPECT_TRUE(latentsFinite(p->run(cfg)));

    Report report = makeReport({makeReportRun("failing", s.failingRun)});
    report.remedies = t;
    const Report back = reportFromJson(reportToJson(report));
    ASSERT_TRUE(back.remedies);
    ASSERT_EQ(back.remedies->rows.size(), t.rows.size());
    EXPECT_EQ(back.remedies->rows[0].planText, t.rows[0].planText);
    EXPECT_EQ(back.remedies->rows[0].candidate.plan, t.rows[0].candidate.plan);
    EXPECT_EQ(back.remedies->rows[0].candidate.kind, t.rows[0].candidate.kind);
    EXPECT_EQ(back.remedies->message, t.message);
    const std::string html = reportToHtml(report);
    EXPECT_NE(html.find("Remedies, ranked"), std::string::npos);
    EXPECT_NE(html.find(remedyAction(t.rows[0].candidate)), std::string::npos);
}

TEST(Remedies, KindsParseWithClearErrors) {
    EXPECT_EQ(parseRemedyKinds("scale, clamp"),
              (std::vector<RemedyKind>{RemedyKind::Scale, RemedyKind::Clamp}));
    for (const char* bad : {"", "clamp,", "clip", "clamp,clamp"}) {
        try {
            parseRemedyKinds(bad);
            ADD_FAILURE() << "no error for '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("remed"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(scaleBitsFor(0), 1);
    EXPECT_EQ(scaleBitsFor(30000), 1);
    EXPECT_EQ(scaleBitsFor(70000), 2);  // 70000 / 4 < 32752: one bit spare
    EXPECT_EQ(scaleBitsFor(1e6), 5);    // stable-diffusion.cpp's 1/32
    EXPECT_EQ(scaleBitsFor(INFINITY), 24);
}

TEST(Remedies, CandidatesAddTheirRulesToTheFailingPlan) {
    const auto failing = PrecisionPlan::parse("transformer=fp16,vae=fp16");
    const std::vector<std::string> blocks = {"transformer.transformer_blocks.1",
                                             "vae.decoder.mid_block"};
    auto absMax = [](const std::string& m) { return m.rfind("vae", 0) == 0 ? 2e5 : 1e6; };
    const auto c = remedyCandidates(
        failing, blocks, {RemedyKind::Format, RemedyKind::Scale, RemedyKind::Clamp}, absMax);
    ASSERT_EQ(c.size(), 6u);
    EXPECT_EQ(c[0].plan.toString(),
              "transformer=fp16,vae=fp16,transformer.transformer_blocks.1=bf16,"
              "vae.decoder.mid_block=bf16");
    EXPECT_EQ(c[1].format, Format::FP32);
    EXPECT_EQ(c[2].plan.toString(),
              "transformer=fp16,vae=fp16,transformer.transformer_blocks.1=scale:5,"
              "vae.decoder.mid_block=scale:3");
    EXPECT_EQ(c[3].scope, "component");
    EXPECT_EQ(c[3].changes, 2);
    EXPECT_EQ(c[5].plan.toString(), "transformer=fp16,vae=fp16,transformer=clamp,vae=clamp");
    EXPECT_EQ(remedyAction(c[5]), "clamp the whole transformer and vae");
    EXPECT_TRUE(remedyCandidates(failing, {}, {RemedyKind::Clamp}, absMax).empty());
}

TEST(Remedies, RankingIsPassingThenFewestChangesThenSmallestChangeThenCheapestOnTheTarget) {
    auto row = [](RemedyKind k, bool passed, int changes, double diff, Format f = Format::BF16) {
        RemedyRow r;
        r.candidate.kind = k;
        r.candidate.format = f;
        r.candidate.changes = changes;
        r.candidate.modules = {"transformer.transformer_blocks.0"};
        r.passed = passed;
        r.outcome.difference = diff;
        return r;
    };
    std::vector<ComponentInfo> comps(1);
    comps[0].name = "transformer";
    comps[0].parameters = 12'000'000'000;
    comps[0].format = Format::FP16;  // the failing plan's
    auto blocksOf = [](const std::string&) { return 60; };
    RemedyTable t;
    t.rows = {row(RemedyKind::Clamp, false, 1, 0.3), row(RemedyKind::Format, true, 1, 0.0102),
              row(RemedyKind::Format, true, 1, 0.0101, Format::FP32),
              row(RemedyKind::Scale, true, 2, 0.001), row(RemedyKind::Fp32Residual, true, 1, 0.02)};
    rankRemedies(t, targetGpu("t4"), comps, blocksOf);
    // bf16 and fp32 differ by less than 0.001: on a T4 fp32 (cost 2) beats slow bf16 (cost 3).
    EXPECT_EQ(t.rows[0].candidate.format, Format::FP32);
    EXPECT_NEAR(t.rows[0].extraWeightMB, 12e9 / 60 * 2 / 1e6, 1e-6);
    EXPECT_EQ(t.rows[1].candidate.kind, RemedyKind::Format);
    EXPECT_NE(t.rows[1].cost.find("slowly"), std::string::npos) << t.rows[1].cost;
    EXPECT_EQ(t.rows[2].candidate.kind, RemedyKind::Fp32Residual);
    EXPECT_EQ(t.rows[3].candidate.kind, RemedyKind::Scale);  // two changes
    EXPECT_FALSE(t.rows[4].passed);
    // 12 B parameters in fp16 are 24 GB: more than a T4's 16 GB, said on every row.
    EXPECT_NE(t.rows[0].cost.find("more than its 16 GB"), std::string::npos) << t.rows[0].cost;
    // On an A100 bf16 costs nothing: it comes first.
    rankRemedies(t, targetGpu("a100"), comps, blocksOf);
    EXPECT_EQ(t.rows[0].candidate.format, Format::BF16);
    EXPECT_EQ(t.rows[0].rank, 1);
    EXPECT_NE(t.rows[0].cost.find("24.0 GB, within its 40 GB"), std::string::npos)
        << t.rows[0].cost;
    // Where only the fp32 row does not fit, it drops below the rows that do.
    comps[0].parameters = 7'900'000'000;  // 15.8 GB in fp16; the fp32 blocks add 0.26 GB
    rankRemedies(t, targetGpu("v100"), comps, blocksOf);
    EXPECT_EQ(t.rows[0].candidate.format, Format::BF16);  // slow on a V100, but it fits
    EXPECT_EQ(t.rows[3].candidate.format, Format::FP32);  // after the two-rule scale that fits
    EXPECT_FALSE(t.rows[3].fits);
    EXPECT_NE(t.rows[3].cost.find("more than its 16 GB"), std::string::npos) << t.rows[3].cost;
}
