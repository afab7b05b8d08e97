// Engine sentences as messages (records/message.h): the catalogue, the English they render (the
// sentences the engine wrote before), a translation hook in the HTML report, and the messages in
// the report JSON (kept on a round trip; a report without them still loads and reads English).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "diagnosis/bisection.h"
#include "diagnosis/image_verdict.h"
#include "diagnosis/remedies.h"
#include "record_equality.h"
#include "report/html_report.h"
#include "report/report_json.h"
#include "report_fixtures.h"

using namespace hs;

namespace {

// Every message piece must name a template and give exactly its arguments.
void expectWellFormed(const MessageText& m, const std::string& what) {
    for (const auto& piece : m) {
        const MessageTemplate* t = findMessage(piece.id);
        ASSERT_NE(t, nullptr) << what << ": unknown id " << piece.id;
        EXPECT_EQ(int(piece.args.size()), placeholderCount(t->text)) << what << ": " << piece.id;
    }
}

// A stand-in translation that reorders: "<id>[%N ...]" with the arguments last to first.
std::string reversed(const MessageTemplate& t) {
    std::string s = "<" + std::string(t.id) + ">";
    for (int k = placeholderCount(t.text); k >= 1; --k) s += "[%" + std::to_string(k) + "]";
    return s;
}

}  // namespace

TEST(Messages, CatalogueIdsAreUniqueAndPlaceholdersNumberedFromOne) {
    std::set<std::string> ids;
    for (const auto& t : messageCatalogue()) {
        EXPECT_TRUE(ids.insert(std::string(t.id)).second) << "duplicate id " << t.id;
        EXPECT_FALSE(t.text.empty()) << t.id;
        const int n = placeholderCount(t.text);
        for (int k = 1; k <= n; ++k)
            EXPECT_NE(t.text.find("%" + std::to_string(k)), std::string_view::npos)
                << t.id << " skips %" << k;
        EXPECT_EQ(findMessage(t.id), &t);
    }
    EXPECT_GT(ids.size(), 60u);
    EXPECT_EQ(findMessage("no.such.id"), nullptr);
}

TEST(Messages, FillIsOnePassAndAllowsReordering) {
    EXPECT_EQ(fillTemplate("%2 before %1", {"a", "b"}), "b before a");
    // An argument holding a placeholder is not filled again.
    EXPECT_EQ(fillTemplate("%1 and %2", {"%2", "x"}), "%2 and x");
    EXPECT_EQ(fillTemplate("100% of %1, %3 kept", {"it"}), "100% of it, %3 kept");
    EXPECT_EQ(placeholderCount("%1 %3 %2"), 3);
    EXPECT_EQ(placeholderCount("no argument 100%"), 0);
}

TEST(Messages, ImageVerdictsKeepTheirEnglishSentences) {
    TensorStats nan;
    nan.count = 12288;
    nan.finite = 12000;
    nan.nan = 280;
    nan.posInf = 5;
    nan.negInf = 3;
    const auto a = judgeImage(nan, 0.0, 0.0, 0.0);
    EXPECT_EQ(a.explanation, "280 NaN and 8 Inf values of 12288; saved as a PNG they turn black");
    EXPECT_EQ(a.message, (MessageText{{"image.nonfinite", {"280", "8", "12288"}}}));
    TensorStats fine;
    fine.count = fine.finite = 100;
    EXPECT_EQ(judgeImage(fine, 0.0123456789, 0.001, 0.05).explanation,
              "mean level 0.0123457, brightest 0.05");
    EXPECT_EQ(judgeImage(fine, 0.5, 0.004, 0.6).explanation, "std 0.004 around level 0.5");
    const auto ok = judgeImage(fine, 0.41, 0.22, 1.0);
    EXPECT_EQ(ok.explanation, "mean level 0.41, std 0.22");
    EXPECT_EQ(englishText(ok.message), ok.explanation);
    for (const char* v : {"ok", "nan/inf", "black", "flat"})
        EXPECT_EQ(englishText(verdictNameMessage(v)), v);
    EXPECT_TRUE(verdictNameMessage("error").id.empty());
}

TEST(Messages, EverySentenceOfAFailingReportIsAWellFormedMessage) {
    const Report r = test::makeComparisonReport();
    ASSERT_TRUE(r.runs[1].findings.firstFailure);
    const FirstFailure& ff = *r.runs[1].findings.firstFailure;
    expectWellFormed(ff.summaryMessage(), "first failure");
    // The fixture's fp16 is emulated; the sentence the engine wrote before messages.
    EXPECT_EQ(ff.summary(),
              "+Inf first at transformer.transformer_blocks.2.ff (block "
              "transformer.transformer_blocks.2, step 7, fp16 emulated); the point before it, "
              "transformer.transformer_blocks.2.attn (step 7), had |max| 6.84");
    EXPECT_EQ(englishText(ff.summaryMessage()), ff.summary());
    ASSERT_TRUE(r.advice);
    const Advice& a = *r.advice;
    expectWellFormed(a.headlineMessage, "headline");
    EXPECT_EQ(englishText(a.headlineMessage), a.headline);
    ASSERT_EQ(a.noteMessages.size(), a.notes.size());
    for (size_t i = 0; i < a.notes.size(); ++i) {
        expectWellFormed(a.noteMessages[i], "note");
        EXPECT_EQ(englishText(a.noteMessages[i]), a.notes[i]);
    }
    ASSERT_FALSE(a.fixes.empty());
    for (const auto& f : a.fixes) {
        expectWellFormed(f.actionMessage, "action");
        expectWellFormed(f.costMessage, "cost");
        EXPECT_EQ(englishText(f.actionMessage), f.action);
        EXPECT_EQ(englishText(f.costMessage), f.cost);
    }
    const HeadroomReport& h = r.runs[1].findings.headroom;
    ASSERT_FALSE(h.reliable);
    expectWellFormed(h.noteMessage, "headroom note");
    EXPECT_EQ(h.note,
              "this run already holds non-finite values (first at "
              "transformer.transformer_blocks.2.ff): the magnitudes after it say nothing about "
              "fp16");
}

TEST(Messages, RenderTextTranslatesAndFallsBackToEnglish) {
    const MessageText m{{"image.black", {"0.01", "0.05"}}};
    EXPECT_EQ(renderText(m, "english", reversed), "<image.black>[0.05][0.01]");
    EXPECT_EQ(renderText(m, "english", nullptr), "english");
    EXPECT_EQ(renderText({}, "english", reversed), "english");
    // A newer report's unknown id, or a piece short of arguments: the stored English.
    EXPECT_EQ(renderText({{"image.future", {"1"}}}, "english", reversed), "english");
    EXPECT_EQ(renderText({{"image.black", {"0.01"}}}, "english", reversed), "english");
}

TEST(Messages, HtmlReportRendersEngineSentencesThroughTheHook) {
    Report r = test::makeComparisonReport();
    for (auto& run : r.runs) {
        const auto v = judgeImage(run.record.image, 0.004, 0.001, 0.01);
        run.record.verdict = verdictName(v.verdict);
        run.record.verdictExplanation = v.explanation;
        run.record.verdictMessage = v.message;
    }
    const std::string english = reportToHtml(r);
    test::expectHas(english,
                    {"<html lang=\"en\">", "<h2>Summary</h2>", r.advice->headline.substr(0, 30)});
    EXPECT_EQ(english.find("<advice."), std::string::npos);

    HtmlReportOptions opt;
    opt.translate = reversed;
    opt.language = "xx";
    const std::string other = reportToHtml(r, opt);
    test::expectHas(other, {"<html lang=\"xx\">", "<h2>&lt;report.section.summary&gt;</h2>",
                            "&lt;first_failure.probe_step.emulated&gt;[fp16][7]",
                            "&lt;advice.fp16_failed_step.emulated&gt;", "&lt;advice.action.",
                            "&lt;headroom.unreliable&gt;", "&lt;image.", "&lt;verdict.",
                            "&lt;bisection.", "&lt;trial."});
    EXPECT_EQ(other.find(r.advice->headline), std::string::npos);
    ASSERT_TRUE(r.bisection);
    EXPECT_EQ(other.find(r.bisection->message), std::string::npos);
}

TEST(Messages, ReportJsonKeepsMessagesAndReadsReportsWithoutThem) {
    Report r = test::makeComparisonReport();
    const auto v = judgeImage(r.runs[1].record.image, 0, 0, 0);
    r.runs[1].record.verdictExplanation = v.explanation;
    r.runs[1].record.verdictMessage = v.message;
    const std::string text = reportToJson(r);
    const nlohmann::json j = nlohmann::json::parse(text);
    const auto& adv = j.at("advice");
    EXPECT_EQ(adv.at("headline_message").at(0).at("id"), r.advice->headlineMessage.at(0).id);
    EXPECT_EQ(adv.at("fixes").at(0).at("cost_message").size(),
              r.advice->fixes.at(0).costMessage.size());
    EXPECT_EQ(
        j.at("runs").at(1).at("findings").at("first_failure").at("summary_message").at(0).at("id"),
        "first_failure.probe_step.emulated");

    const Report back = reportFromJson(text);
    EXPECT_EQ(back.runs[1].record.verdictMessage, v.message);
    ASSERT_TRUE(back.advice);
    test::expectSameAdvice(*back.advice, *r.advice);
    EXPECT_EQ(reportToJson(back), text);

    // A report written before messages: strip every *_message key.
    nlohmann::json old = j;
    std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& n) {
        if (n.is_object()) {
            for (auto it = n.begin(); it != n.end();) {
                const std::string k = it.key();
                if (k.size() > 8 && (k.rfind("_message") == k.size() - 8 || k == "note_messages"))
                    it = n.erase(it);
                else
                    strip(*it++);
            }
        } else if (n.is_array()) {
            for (auto& e : n) strip(e);
        }
    };
    strip(old);
    ASSERT_EQ(old.dump().find("_message"), std::string::npos);
    const Report legacy = reportFromJson(old.dump());
    EXPECT_TRUE(legacy.runs[1].record.verdictMessage.empty());
    EXPECT_EQ(legacy.runs[1].record.verdictExplanation, v.explanation);
    ASSERT_TRUE(legacy.advice);
    EXPECT_TRUE(legacy.advice->headlineMessage.empty());
    EXPECT_EQ(legacy.advice->headline, r.advice->headline);
    // Its HTML, even with a translator, reads the stored English for those sentences.
    HtmlReportOptions opt;
    opt.translate = reversed;
    const std::string html = reportToHtml(legacy, opt);
    EXPECT_NE(html.find(r.advice->fixes.at(0).cost.substr(0, 20)), std::string::npos);
    EXPECT_EQ(html.find("&lt;advice.fp16_failed"), std::string::npos);

    // A message of the wrong shape is an error that names where it is.
    nlohmann::json bad = j;
    bad["advice"]["headline_message"] = {{{"id", "advice.clean"}, {"args", 3}}};
    try {
        reportFromJson(bad.dump());
        ADD_FAILURE() << "no error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("headline_message[0].args"), std::string::npos)
            << e.what();
    }
}

TEST(Messages, RemedyActionsCostsAndTheTableSentenceAreMessages) {
    const std::vector<std::string> blocks = {"transformer.transformer_blocks.1",
                                             "transformer.transformer_blocks.2"};
    const auto candidates = remedyCandidates(
        PrecisionPlan::parse("transformer=fp16"), blocks,
        {RemedyKind::Format, RemedyKind::Clamp, RemedyKind::Scale, RemedyKind::Fp32Residual},
        [](const std::string&) { return 300000.0; });
    const Report r = test::makeComparisonReport();
    for (const DeviceInfo& d : {DeviceInfo::cpu(), targetGpu("t4")}) {
        RemedyTable t;
        t.referencePlan = "transformer=bf16";
        t.failingBlocks = blocks;
        for (size_t i = 0; i < candidates.size(); ++i) {
            RemedyRow row;
            row.candidate = candidates[i];
            row.passed = i % 2 == 0;
            row.outcome.difference = 0.001 * double(i);
            row.psnr = 31.5;
            t.rows.push_back(row);
        }
        rankRemedies(t, d, r.runs[1].record.components, [](const std::string&) { return 6; });
        expectWellFormed(t.messageText, "table");
        EXPECT_EQ(englishText(t.messageText), t.message);
        EXPECT_NE(t.message.find(" fixes the run with the fewest changes: image difference "),
                  std::string::npos);
        for (const auto& row : t.rows) {
            expectWellFormed(row.costMessage, "cost");
            expectWellFormed(remedyActionMessage(row.candidate), "action");
            EXPECT_EQ(englishText(row.costMessage), row.cost);
        }
    }
    // Sentences as the engine wrote them before messages.
    RemedyCandidate whole;
    whole.kind = RemedyKind::Scale;
    whole.scope = "component";
    whole.modules = {"transformer", "vae"};
    whole.scaleBits = 3;
    EXPECT_EQ(remedyAction(whole), "scale the whole transformer and vae by 2^-3");
    RemedyCandidate block;
    block.scope = "blocks";
    block.modules = blocks;
    block.format = Format::BF16;
    EXPECT_EQ(remedyAction(block), "transformer_blocks 1-2 in bf16");
    RemedyTable none;
    rankRemedies(none, DeviceInfo::cpu(), {}, nullptr);
    EXPECT_EQ(none.message, "no remedy was tried: no failing block was found");
}

// A bisection's trials and result are messages with the English the engine wrote before them.
TEST(Messages, BisectionTrialsAndResultsAreMessages) {
    auto why = [](const TrialOutcome& o, bool* pass) {
        std::string english;
        MessageText m;
        *pass = trialPasses(o, 0.05, &english, &m);
        expectWellFormed(m, english);
        EXPECT_EQ(englishText(m), english);
        EXPECT_NE(renderText(m, english, reversed), english) << english;  // every piece known
        return english;
    };
    bool pass = true;
    TrialOutcome o;
    o.nonFinite = 12;
    o.verdict = "nan/inf";
    EXPECT_EQ(why(o, &pass), "12 non-finite values (verdict nan/inf)");
    EXPECT_FALSE(pass);
    o = {};
    o.allFinite = true;
    o.verdict = "black";
    EXPECT_EQ(why(o, &pass), "all finite but the image is black");
    o.verdict = "ok";
    o.difference = 0.25;
    EXPECT_EQ(why(o, &pass), "difference 0.25 to the reference is above the tolerance 0.05");
    o.difference = 0.0125;
    EXPECT_EQ(why(o, &pass), "passes: all finite, verdict ok, difference 0.0125 <= 0.05");
    EXPECT_TRUE(pass);
    o.error = "out of memory";
    EXPECT_EQ(why(o, &pass), "the trial did not run: out of memory");

    // Blocks 0..3; the run passes when block 2 is safe (or, for `never`, not at all).
    const std::vector<std::string> blocks = {
        "transformer.transformer_blocks.0", "transformer.transformer_blocks.1",
        "transformer.transformer_blocks.2", "transformer.transformer_blocks.3"};
    auto trial = [](bool never) {
        return [never](const PrecisionPlan& p) {
            TrialOutcome t;
            t.allFinite = !never && p.resolve("transformer.transformer_blocks.2", Format::FP16) !=
                                        Format::FP16;
            t.nonFinite = t.allFinite ? 0 : 3;
            t.verdict = t.allFinite ? "ok" : "nan/inf";
            return t;
        };
    };
    const PrecisionPlan failing = PrecisionPlan::parse("transformer=fp16");
    auto result = [&](const BisectionResult& r) {
        expectWellFormed(r.messageText, r.message);
        EXPECT_EQ(englishText(r.messageText), r.message);
        EXPECT_NE(renderText(r.messageText, r.message, reversed), r.message);
        for (const auto& t : r.trials) EXPECT_EQ(englishText(t.whyMessage), t.why);
        return r.message;
    };
    const BisectionResult fixed = bisectPrecision(failing, blocks, trial(false));
    EXPECT_EQ(fixed.status, BisectionStatus::Fixed);
    EXPECT_EQ(result(fixed),
              "keeping 1 of 4 blocks in bf16 (transformer_blocks 2) fixes the run; "
              "found in " +
                  std::to_string(fixed.trials.size()) + " trials");
    EXPECT_EQ(result(bisectPrecision(failing, blocks, trial(true))),
              "even with all 4 candidate blocks in bf16 the run fails (3 non-finite values "
              "(verdict nan/inf)): the cause lies outside these blocks");
    BisectionOptions one;
    one.maxIterations = 1;
    EXPECT_EQ(result(bisectPrecision(failing, blocks, trial(false), one)),
              "stopped at the limit after 1 trial; the smallest passing set so far keeps 4 of 4 "
              "blocks in bf16 (transformer_blocks 0-3) and may not be minimal");
    EXPECT_EQ(result(bisectPrecision(failing, {}, trial(false))), "no candidate blocks to bisect");
    BisectionResult remediesOnly;
    setNoBisectionForRemedies(remediesOnly);
    EXPECT_EQ(result(remediesOnly), "no bisection: the remedies were tried without format changes");
}
