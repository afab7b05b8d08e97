#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/html_report.h"
#include "report/html_util.h"
#include "report_fixtures.h"

using namespace hs;

namespace {

size_t occurrences(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

}  // namespace

TEST(HtmlUtil, EscapeAndNumbers) {
    EXPECT_EQ(html::esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(html::num(65504), "65504");
    EXPECT_EQ(html::num(131008.4), "131008");
    EXPECT_EQ(html::num(3.14159), "3.142");
    EXPECT_EQ(html::num(1.5e9), "1.500e+09");
    EXPECT_EQ(html::num(std::nan("")), "\u2014");
    EXPECT_EQ(html::num(-INFINITY), "\u2212\u221e");
    EXPECT_EQ(html::count(12288), "12,288");
    EXPECT_EQ(html::count(-1234567), "-1,234,567");
}

TEST(HtmlReport, SelfContained) {
    const std::string h = reportToHtml(test::makeComparisonReport());
    EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(h.find("Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
                     "style-src 'unsafe-inline'\""),
              std::string::npos);
    test::expectHasNone(h, {"http://", "https://", "<script", "<link", "url(", "@import", "href="});
    // Every src is a data: URI.
    for (size_t p = h.find("src=\""); p != std::string::npos; p = h.find("src=\"", p + 1))
        EXPECT_EQ(h.compare(p + 5, 22, "data:image/png;base64,"), 0) << h.substr(p, 40);
    EXPECT_NE(h.find("</html>"), std::string::npos);
}

TEST(HtmlReport, EscapesUserText) {
    Report r = test::makeComparisonReport();
    const std::string h = reportToHtml(r);
    EXPECT_NE(h.find("a red fox &amp; a &quot;blue&quot; &lt;b&gt;bird&lt;/b&gt;"),
              std::string::npos);
    EXPECT_EQ(h.find("<b>bird</b>"), std::string::npos);
    EXPECT_NE(h.find("fp16 &lt;all&gt;"), std::string::npos);
    EXPECT_EQ(h.find("fp16 <all>"), std::string::npos);
    test::expectHas(h, {"<title>fox &amp; bird: fp16 vs bf16</title>",
                        "Intel Xeon &lt;test&gt; &amp; co", "/models/demo &lt;flux&gt;"});

    r.runs[0].record.config.prompt = "</style></code><script>alert(1)</script>";
    r.runs[0].label = "<img src=x onerror=alert(1)>";
    r.runs[1].record.probes[3].name = "transformer.<svg onload=alert(1)>";
    const std::string evil = reportToHtml(r);
    test::expectHasNone(evil, {"<script", "<img src=x", "<svg onload"});
    EXPECT_NE(evil.find("&lt;/style&gt;&lt;/code&gt;&lt;script&gt;"), std::string::npos);
}

TEST(HtmlReport, SectionsAndComparison) {
    const Report r = test::makeComparisonReport();
    const std::string h = reportToHtml(r);
    for (const char* id :
         {"summary", "environment", "components", "plans", "steps", "previews", "heatmap",
          "first-failure", "headroom", "divergence", "bisection", "advice"})
        EXPECT_NE(h.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
    // Summary first, advice last.
    EXPECT_LT(h.find("id=\"summary\""), h.find("id=\"environment\""));
    EXPECT_LT(h.find("id=\"bisection\""), h.find("id=\"advice\""));
    EXPECT_EQ(occurrences(h, "class=\"card\" style=\"border-top"), 2u);  // side by side
    test::expectHas(h, {"2 runs side by side", "verdict v-ok", "verdict v-naninf", "fp16 max 65504",
                        "FluxTransformer2DModel", "transformer.transformer_blocks.2 (step 7)",
                        "transformer.transformer_blocks.2=bf16",
                        html::esc(r.advice->fixes[0].action), html::esc(r.bisection->message)});
    EXPECT_EQ(occurrences(h, "<svg class=\"plot\""), 4u);  // |max|, 2 x min/max, divergence
    EXPECT_EQ(occurrences(h, "<svg class=\"heat\""), 2u);
    EXPECT_EQ(occurrences(h, "class=\"hmark\""), 1u);  // the failing run's first NaN/Inf
    // Images: final + saved in the summary, every preview and the final in the strip.
    size_t expected = 0;
    for (const auto& run : r.runs) expected += 2 + run.record.previews.size() + 1;
    EXPECT_EQ(occurrences(h, "data:image/png;base64,"), expected);
    // Per-step NaN counts of the failing run appear in its table.
    EXPECT_NE(h.find("1,024 NaN, 0 +Inf, 0 −Inf"), std::string::npos);
    // Headroom: the predicted overflow and the saturating threshold explained.
    test::expectHas(h, {"overflows in fp16", "65520"});
}

// A run that failed without any point reaching 65520 (a NaN from an operation, not an overflow):
// its headroom section names the failure instead of predicting that nothing overflows, in the
// same words for the thresholds as a clean run's.
TEST(HtmlReport, FailingRunsHeadroomNamesItsFirstNonFiniteValue) {
    test::FixtureOptions o;
    o.transformerFormat = Format::FP16;
    o.failWithNaNOnly = true;
    o.failAt = std::make_pair(std::string("transformer.transformer_blocks.1.attn"), 3);
    Report failing;
    failing.runs.push_back(makeReportRun("fp16", test::makeRun(o)));
    ASSERT_TRUE(failing.runs[0].findings.firstFailure);
    ASSERT_FALSE(failing.runs[0].findings.headroom.firstFailure);  // no predicted overflow
    const std::string thresholds =
        "fp16's largest finite value, 65504; values from 65520 round to Inf";
    const std::string h = reportToHtml(failing);
    EXPECT_EQ(h.find("none is predicted to overflow"), std::string::npos);
    test::expectHas(h, {"This run already failed: its first non-finite value is at",
                        "transformer.transformer_blocks.1.attn", html::esc(thresholds)});

    Report clean;
    clean.runs.push_back(makeReportRun("fp16", test::makeRun({})));
    test::expectHas(reportToHtml(clean),
                    {"none is predicted to overflow in fp16", html::esc(thresholds)});
}

TEST(HtmlReport, HeatmapFallsBackToBlocks) {
    const Report r = test::makeComparisonReport();
    const std::string byPoint = reportToHtml(r);
    EXPECT_NE(byPoint.find("class=\"hrow\">transformer.transformer_blocks.2.ff<"),
              std::string::npos);
    HtmlReportOptions o;
    o.maxHeatmapRows = 20;
    const std::string byBlock = reportToHtml(r, o);
    EXPECT_EQ(byBlock.find("class=\"hrow\">transformer.transformer_blocks.2.ff<"),
              std::string::npos);
    test::expectHas(byBlock, {"class=\"hrow\">transformer.transformer_blocks.2<",
                              "too many points for one row"});
    EXPECT_EQ(occurrences(byBlock, "class=\"hmark\""), 1u);
}

// A saved report is a file from anywhere: 3,000 probe records, each at a step of its own and
// in a block of its own, would make a 3,000 x 3,000 heatmap. It is capped, and says so.
TEST(HtmlReport, HostileProbeCountsAreCappedAndNamed) {
    for (const int configSteps : {20, 5000}) {
        SCOPED_TRACE(configSteps);
        test::FixtureOptions o;
        RunRecord rec = test::makeRun(o);
        rec.config.steps = configSteps;
        rec.probes.clear();
        for (int i = 0; i < 3000; ++i) {
            ProbeRecord p;
            p.name = "transformer.blocks_" + std::to_string(i) + ".out";
            p.step = i;
            p.stats = test::statsOf(16, 1.0 + i);
            rec.probes.push_back(p);
        }
        Report r;
        r.runs.push_back(makeReportRun("hostile", rec));
        const auto t0 = std::chrono::steady_clock::now();
        const std::string html = reportToHtml(r);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20);
        EXPECT_LT(html.size(), size_t(40) << 20);
        EXPECT_NE(html.find("Not shown: "), std::string::npos);
        // Steps past the run's are left out; past 1,000 shown steps, the rest too.
        const std::string offSteps = std::to_string(3000 - std::min(configSteps, 3000)) +
                                     " probe records at steps this run does not have";
        EXPECT_NE(html.find(offSteps), std::string::npos);
        EXPECT_LE(occurrences(html, "class=\"hrow\""), 160u);
    }
}

TEST(HtmlReport, PreviewThinning) {
    Report r = test::makeComparisonReport();
    r.runs.resize(1);
    HtmlReportOptions o;
    o.maxPreviews = 5;
    const std::string h = reportToHtml(r, o);
    EXPECT_EQ(occurrences(h, "class=\"thumb\""), 5u + 1u);  // 5 previews + the final image
    test::expectHas(h, {"step 0<", "step 19 (VAE)"});       // the last one is kept
}

TEST(HtmlReport, EmptyAndProbelessRuns) {
    Report empty;
    const std::string e = reportToHtml(empty);
    test::expectHas(e, {"This report holds no run.", "</html>"});

    Report r;
    test::FixtureOptions o;
    o.probeLevel = ProbeLevel::Off;
    o.withImages = false;
    r.runs.push_back(makeReportRun("no probes", test::makeRun(o)));
    const std::string h = reportToHtml(r);
    test::expectHas(h, {"No probe points recorded (probe level off).", "No previews recorded.",
                        "No bisection was run"});
    EXPECT_EQ(h.find("id=\"divergence\""), std::string::npos);  // one run: nothing to compare
}

TEST(HtmlReport, RunsShowTheEstimateTheyMadeBesideTheirTime) {
    Report r = test::makeComparisonReport();
    r.runs[0].record.estimate = RunEstimate{7.25, 1.5e9, 1.25e9, 2.5e8};
    r.runs[1].record.estimate = RunEstimate{12.5, 2.5e9, 2.5e9, -1};
    r.runs.push_back(r.runs[1]);
    r.runs[2].record.estimate.reset();
    const std::string h = reportToHtml(r);
    test::expectHas(h, {"6.5 s; estimated after its second step: 7.25 s, 1.5 GB of memory (weights "
                        "1.25 GB + activations 0.25 GB)",
                        "12.5 s, 2.5 GB of memory (weights only: activations not measured on this "
                        "device)"});
    // A run without an estimate states only its time.
    size_t n = 0;
    for (size_t at = h.find("estimated after its second step"); at != std::string::npos;
         at = h.find("estimated after its second step", at + 1))
        ++n;
    EXPECT_EQ(n, 2u);
}

TEST(HtmlReport, WrittenAtomically) {
    const Report r = test::makeComparisonReport();
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("halfscope_" + std::to_string(::getpid()) + "_report.html"))
                                 .string();
    writeReportHtml(path, r);
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    // Same content except the creation time, which is part of the report value.
    EXPECT_EQ(s.str(), reportToHtml(r));
    std::remove(path.c_str());
    EXPECT_ANY_THROW(writeReportHtml("/nonexistent/dir/r.html", r));
}
