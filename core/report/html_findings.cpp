// The findings sections of the HTML report: layer heatmap, first failure, headroom, latent
// divergence, bisection, advice.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "diagnosis/advice.h"
#include "diagnosis/blocks.h"
#include "diagnosis/image_verdict.h"
#include "diagnosis/run_timeline.h"
#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/svg_plot.h"

namespace hs::html {

namespace {

struct Agg {
    double maxAbs = -1;  // -1: no finite value seen
    int64_t nonFinite = 0;
    bool present = false;
};

// At most this many step columns: a saved report is a file from anywhere, and the heatmap's
// cells are rows x columns (rows are capped by HtmlReportOptions::maxHeatmapRows).
constexpr size_t kMaxHeatmapSteps = 1000;

// What a heatmap left out of a record it could not show whole.
struct HeatmapCaps {
    size_t probesOffSteps = 0;  // probe records at steps the run does not have
    size_t rowsLeftOut = 0, stepsLeftOut = 0;
};

svg::Heatmap buildHeatmap(const RunRecord& rec, const std::optional<FirstFailure>& ff, int maxRows,
                          bool& byBlock, HeatmapCaps& caps, const HtmlReportOptions& opt) {
    const auto timeline = runTimeline(rec);
    // A probe's step must be one of the run's: below its configured steps or a recorded one.
    int lastStep = rec.config.steps - 1;
    for (const auto& s : rec.steps) lastStep = std::max(lastStep, s.step);
    auto shown = [&](const TimelineEntry& e) {
        return e.kind == TimelineEntry::Kind::Probe && e.step <= lastStep;
    };
    // Columns: text encoding, each step, decode.
    bool pre = false, post = false;
    std::set<int> steps;
    std::vector<std::string> points;
    std::map<std::string, size_t> pointIndex;
    for (const auto& e : timeline) {
        if (e.kind != TimelineEntry::Kind::Probe) continue;
        if (!shown(e)) {
            ++caps.probesOffSteps;
            continue;
        }
        if (e.step >= 0)
            steps.insert(e.step);
        else if (e.afterLoop)
            post = true;
        else
            pre = true;
        if (pointIndex.emplace(e.point, points.size()).second) points.push_back(e.point);
    }
    byBlock = int(points.size()) > maxRows;
    svg::Heatmap h;
    std::map<std::string, size_t> rowOf;
    for (const auto& p : points) {
        const std::string row = byBlock ? blockOf(p) : p;
        if (rowOf.count(row)) continue;
        if (h.rows.size() >= size_t(std::max(maxRows, 1))) {
            ++caps.rowsLeftOut;
            rowOf.emplace(row, SIZE_MAX);
            continue;
        }
        rowOf.emplace(row, h.rows.size());
        h.rows.push_back(row);
    }
    std::map<int, size_t> colOfStep;
    if (pre) h.cols.push_back(plainPhrase(opt, "text"));
    for (int s : steps) {
        if (colOfStep.size() >= kMaxHeatmapSteps) {
            ++caps.stepsLeftOut;
            colOfStep.emplace(s, SIZE_MAX);
            continue;
        }
        colOfStep[s] = h.cols.size();
        h.cols.push_back(std::to_string(s));
    }
    const size_t postCol = h.cols.size();
    if (post) h.cols.push_back(plainPhrase(opt, "decode"));
    const size_t C = h.cols.size();
    std::vector<Agg> agg(h.rows.size() * C);
    auto colOf = [&](const TimelineEntry& e) -> size_t {
        if (e.step >= 0) return colOfStep[e.step];
        return e.afterLoop ? postCol : 0;
    };
    for (const auto& e : timeline) {
        if (!shown(e)) continue;
        const size_t row = rowOf[byBlock ? blockOf(e.point) : e.point];
        const size_t col = colOf(e);
        if (row == SIZE_MAX || col == SIZE_MAX) continue;  // left out above
        Agg& a = agg[row * C + col];
        a.present = true;
        a.nonFinite += e.stats->nonFinite();
        if (!std::isnan(e.stats->absMax)) a.maxAbs = std::max(a.maxAbs, e.stats->absMax);
        if (ff && ff->fromProbe && e.probeIndex == ff->probeIndex) {
            h.markRow = int(row);
            h.markCol = int(col);
        }
    }
    h.cells.resize(agg.size());
    for (size_t r = 0; r < h.rows.size(); ++r)
        for (size_t c = 0; c < C; ++c) {
            const Agg& a = agg[r * C + c];
            svg::Cell& cell = h.cells[r * C + c];
            cell.present = a.present;
            if (!a.present) continue;
            cell.nonFinite = a.nonFinite > 0;
            cell.value = a.maxAbs >= 0 ? fp16HeadroomBits(a.maxAbs) : NAN;
            const bool stepColumn = !(pre && c == 0) && !(post && c == postCol);
            std::string tip = h.rows[r] + " \u00b7 " +
                              (stepColumn ? plainPhrase(opt, "step %1", {h.cols[c]}) : h.cols[c]);
            if (a.maxAbs >= 0)
                tip += " \u00b7 |max| " + num(a.maxAbs) + " \u00b7 " +
                       plainPhrase(opt, "%1 bits to 65504", {num(cell.value)});
            if (a.nonFinite > 0) tip += " \u00b7 " + count(a.nonFinite) + " NaN/Inf";
            cell.tip = tip;
        }
    return h;
}

std::string pointStatus(const PointHeadroom& p, const HtmlReportOptions& opt) {
    if (!p.runsInFp16) return phrase(opt, "not in fp16");
    if (p.overflows) return phrase(opt, "overflows in fp16");
    if (p.saturates) return phrase(opt, "saturates (rounds to 65504)");
    if (p.headroomBits < 1) return phrase(opt, "under 1 bit");
    return phrase(opt, "ok");
}

void headroomRow(std::ostringstream& o, const PointHeadroom& p, size_t index,
                 const HtmlReportOptions& opt) {
    const char* cls = !p.runsInFp16 || p.afterFailure     ? " class=\"dim\""
                      : p.overflows                       ? " class=\"bad\""
                      : p.saturates || p.headroomBits < 1 ? " class=\"warn\""
                                                          : "";
    const double bits = p.headroomBits;
    const double w =
        std::isfinite(bits) ? std::min(std::fabs(std::clamp(bits, -8.0, 24.0)) * 4, 96.0) : 96;
    o << "<tr" << cls << "><td class=\"n\">" << index << "</td><td class=\"mono\">" << esc(p.name)
      << "</td><td class=\"mono\">" << esc(p.block) << "</td><td class=\"n\">" << num(p.maxAbs)
      << "</td><td class=\"n\">" << (p.peakStep >= 0 ? std::to_string(p.peakStep) : "\u2014")
      << "</td><td class=\"n\">" << num(bits) << "</td><td><span class=\"bar"
      << (bits < 0 ? " neg" : "") << "\" style=\"width:" << int(w) << "px\"></span></td><td>"
      << pointStatus(p, opt) << "</td></tr>";
}

std::string headroomHead(const HtmlReportOptions& opt) {
    return "<tr><th class=\"n\">#</th><th>" + phrase(opt, "point") + "</th><th>" +
           phrase(opt, "block") + "</th><th class=\"n\">max |x|</th><th class=\"n\">" +
           phrase(opt, "peak step") + "</th><th class=\"n\">" + phrase(opt, "bits to 65504") +
           "</th><th></th><th>fp16</th></tr>";
}

// FirstFailure::kindText() in the reader's language.
std::string kindHtml(const FirstFailure& ff, const HtmlReportOptions& opt) {
    return esc(nonFiniteKindName(ff.kind)) + " " +
           phrase(opt, "(%1 +Inf, %2 -Inf, %3 NaN of %4 values)",
                  {std::to_string(ff.posInf), std::to_string(ff.negInf), std::to_string(ff.nan),
                   std::to_string(ff.count)});
}

}  // namespace

std::string linkHtml(const SpreadLink& l, const HtmlReportOptions& opt) {
    const std::string label = nameText(opt, l.label);
    return l.step >= 0 ? label + " " + phrase(opt, "(step %1)", {std::to_string(l.step)}) : label;
}

std::string chainHtml(const FirstFailure& ff, const HtmlReportOptions& opt) {
    std::string s;
    for (size_t i = 0; i < ff.chain.size(); ++i)
        s += (i ? " -&gt; " : "") + linkHtml(ff.chain[i], opt);
    return s;
}

namespace {

// describeBlocks(), with "none" in the reader's language.
std::string blocksHtml(const std::vector<std::string>& blocks, const HtmlReportOptions& opt) {
    return blocks.empty() ? phrase(opt, "none") : esc(describeBlocks(blocks));
}

// fixCheckText() in the reader's language.
std::string fixCheckHtml(const Fix& f, const HtmlReportOptions& opt) {
    if (f.verified) return " " + phrase(opt, "(verified)");
    if (!f.triedVerdict.empty())
        return " " + phrase(opt, "(tried on the same prompt and seed: %1)",
                            {renderText({verdictNameMessage(f.triedVerdict)}, f.triedVerdict,
                                        opt.translate)});
    return f.planText.empty() ? "" : " " + phrase(opt, "(not tried)");
}

}  // namespace

std::string passText(bool passed, const HtmlReportOptions& opt) {
    return passed ? "\u2713 " + phrase(opt, "pass") : "\u2717 " + phrase(opt, "fail");
}

void heatmaps(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"heatmap\"><h2>" << heading(opt, "report.section.heatmap")
      << "</h2><p class=\"muted\">"
      << phrase(opt,
                "Each row is a probe point in call order, each column a sampling step "
                "(\u201ctext\u201d: text encoding, \u201cdecode\u201d: VAE). The colour is the "
                "point's max |x| relative to fp16's limit 65504, in bits of headroom. Hover a cell "
                "for its numbers.")
      << "</p>"
      << svg::heatmapLegend({plainPhrase(opt, "heatmap legend"),
                             plainPhrase(opt, "\u226416 bits below"),
                             plainPhrase(opt, "over 65504"), plainPhrase(opt, "first NaN/Inf")});
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const ReportRun& run = r.runs[i];
        o << "<div class=\"card\">" << runHeading(r, i, opt);
        if (run.record.probes.empty()) {
            o << "<p class=\"muted\">"
              << phrase(opt, "No probe points recorded (probe level %1).",
                        {plainPhrase(opt, probeLevelName(run.record.config.probeLevel).c_str())})
              << "</p></div>";
            continue;
        }
        bool byBlock = false;
        HeatmapCaps caps;
        svg::Heatmap h = buildHeatmap(run.record, run.findings.firstFailure, opt.maxHeatmapRows,
                                      byBlock, caps, opt);
        h.title = plainPhrase(opt, "%1 layer heatmap", {run.label});
        h.markTip = plainPhrase(opt, "first non-finite value");
        h.markLabel = plainPhrase(opt, "first NaN/Inf");
        if (byBlock)
            o << "<p class=\"muted\">"
              << phrase(opt,
                        "%1 blocks (too many points for one row each: a block's row shows its "
                        "largest point).",
                        {std::to_string(h.rows.size())})
              << "</p>";
        if (caps.probesOffSteps || caps.rowsLeftOut || caps.stepsLeftOut)
            o << "<p class=\"warn\">"
              << phrase(opt,
                        "Not shown: %1 probe records at steps this run does not have, %2 rows "
                        "past the first %3 and %4 steps past the first %5.",
                        {std::to_string(caps.probesOffSteps), std::to_string(caps.rowsLeftOut),
                         std::to_string(opt.maxHeatmapRows), std::to_string(caps.stepsLeftOut),
                         std::to_string(kMaxHeatmapSteps)})
              << "</p>";
        o << "<div class=\"scroll\">" << svg::heatmap(h) << "</div></div>";
    }
    o << "</section>";
}

void firstFailures(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"first-failure\"><h2>" << heading(opt, "report.section.first_failure")
      << "</h2><div class=\"runs\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        o << "<div class=\"card\">" << runHeading(r, i, opt);
        const auto& ff = r.runs[i].findings.firstFailure;
        if (!ff) {
            o << "<p>" << phrase(opt, "No NaN or Inf in this run.") << "</p></div>";
            continue;
        }
        o << "<table>";
        auto row = [&](const std::string& k, const std::string& v) {
            o << "<tr><th>" << k << "</th><td>" << v << "</td></tr>";
        };
        row(phrase(opt, "kind"), kindHtml(*ff, opt));
        row(phrase(opt, "point"), "<span class=\"mono\">" + esc(ff->point) + "</span>");
        row(phrase(opt, "block"), "<span class=\"mono\">" + esc(ff->block) + "</span>");
        row(phrase(opt, "component"), esc(ff->component));
        row(phrase(opt, "step"),
            ff->step >= 0 ? std::to_string(ff->step) : phrase(opt, "outside the loop"));
        row(phrase(opt, "ran in"),
            ranIn(opt, ff->format, ff->execution) +
                (ff->fromProbe ? phrase(opt, ", %1 point",
                                        {plainPhrase(opt, probeLevelName(ff->granularity).c_str())})
                               : ""));
        if (ff->inputPoint)
            row(phrase(opt, "point before it"),
                "<span class=\"mono\">" + esc(*ff->inputPoint) + "</span>" +
                    (ff->inputStep >= 0
                         ? " " + phrase(opt, "(step %1)", {std::to_string(ff->inputStep)})
                         : "") +
                    ", |max| " + num(ff->inputAbsMax) + " (" +
                    phrase(opt, "%1 bits to 65504", {num(fp16HeadroomBits(ff->inputAbsMax))}) +
                    ")");
        o << "</table><h4>" << phrase(opt, "How it spread") << "</h4><div class=\"chain\">";
        for (size_t k = 0; k < ff->chain.size(); ++k) {
            const auto& l = ff->chain[k];
            if (k) o << "<span class=\"arrow\">\u2192</span>";
            o << "<span class=\"pill" << (k == 0 ? " origin" : "") << "\" title=\""
              << nameText(opt, l.point) << ": "
              << phrase(opt, "%1 non-finite values", {count(l.nonFinite)}) << "\">"
              << linkHtml(l, opt) << "</span>";
        }
        o << "</div>";
        if (!ff->reachedImage)
            o << "<p class=\"muted\">" << phrase(opt, "It did not reach the image.") << "</p>";
        o << "</div>";
    }
    o << "</div></section>";
}

void headroom(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"headroom\"><h2>" << heading(opt, "report.section.headroom")
      << "</h2><p class=\"muted\">"
      << phrase(opt,
                "Bits of headroom = log2(65504 / max|x|) over the whole run. A value overflows to "
                "Inf in fp16 when |x| \u2265 65520 (round to nearest even); between 65504 and "
                "65520 it rounds down to 65504.")
      << "</p><div class=\"stack\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const HeadroomReport& h = r.runs[i].findings.headroom;
        o << "<div class=\"card\">" << runHeading(r, i, opt);
        if (h.points.empty()) {
            o << "<p class=\"muted\">" << phrase(opt, "No probe points recorded.") << "</p></div>";
            continue;
        }
        if (!h.reliable)
            o << "<p><b>" << phrase(opt, "Caution:") << "</b> " << say(opt, h.noteMessage, h.note)
              << ".</p>";
        if (h.firstFailure) {
            const auto& f = *h.firstFailure;
            const std::string point = "<span class=\"mono\">" + esc(f.point) + "</span>";
            const std::string block = "<span class=\"mono\">" + esc(f.block) + "</span>";
            o << "<p><b>" << phrase(opt, "Predicted first fp16 failure:") << "</b> "
              << (f.step >= 0 ? phraseHtml(opt, "%1 (block %2, step %3), max |x| %4.",
                                           {point, block, std::to_string(f.step), num(f.maxAbs)})
                              : phraseHtml(opt, "%1 (block %2), max |x| %3.",
                                           {point, block, num(f.maxAbs)}))
              << "</p>";
        } else if (const auto& ff = r.runs[i].findings.firstFailure) {
            // The run failed already: no prediction, the figures only cover its finite values.
            const std::string at =
                "<span class=\"mono\">" + esc(ff->point) + "</span>" +
                (ff->step >= 0 ? " " + phrase(opt, "(step %1)", {std::to_string(ff->step)}) : "");
            o << "<p>"
              << phraseHtml(opt,
                            "This run already failed: its first non-finite value is at %1 "
                            "(fp16's largest finite value, 65504; values from 65520 round to "
                            "Inf). The headroom figures are over its finite values; least "
                            "headroom: %2 bits.",
                            {at, esc(num(h.minHeadroomBits))})
              << "</p>";
        } else {
            o << "<p>"
              << phrase(opt,
                        "No point reaches 65520 (fp16's largest finite value, 65504; values from "
                        "65520 round to Inf): none is predicted to overflow in fp16. Least "
                        "headroom: %1 bits.",
                        {num(h.minHeadroomBits)})
              << "</p>";
        }
        if (!h.overflowing.empty()) {
            const std::string n = std::to_string(h.overflowing.size());
            o << "<p><b>"
              << (h.overflowing.size() == 1 ? phrase(opt, "%1 point predicted to overflow", {n})
                                            : phrase(opt, "%1 points predicted to overflow", {n}))
              << "</b> " << phrase(opt, "(call order):") << " <span class=\"mono\">";
            for (size_t k = 0; k < h.overflowing.size() && k < 40; ++k)
                o << (k ? ", " : "") << esc(h.points[h.overflowing[k]].name);
            if (h.overflowing.size() > 40) o << ", \u2026";
            o << "</span></p>";
        }
        std::vector<size_t> order(h.points.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            const auto& x = h.points[a];
            const auto& y = h.points[b];
            if (x.runsInFp16 != y.runsInFp16) return x.runsInFp16;
            return x.headroomBits < y.headroomBits;
        });
        o << "<h4>" << phrase(opt, "Closest to the limit") << "</h4><div class=\"scroll\"><table>"
          << headroomHead(opt);
        for (size_t k = 0; k < order.size() && int(k) < opt.headroomTopRows; ++k)
            headroomRow(o, h.points[order[k]], order[k], opt);
        o << "</table></div><details><summary>"
          << phrase(opt, "all %1 points in call order", {std::to_string(h.points.size())})
          << "</summary><div class=\"scroll\"><table>" << headroomHead(opt);
        for (size_t k = 0; k < h.points.size(); ++k) headroomRow(o, h.points[k], k, opt);
        o << "</table></div></details></div>";
    }
    o << "</div></section>";
}

void divergence(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    if (r.runs.size() < 2) return;
    o << "<section id=\"divergence\"><h2>"
      << say(opt, {{"report.section.divergence", {r.runs[0].label}}},
             "Latent divergence from " + r.runs[0].label)
      << "</h2><p class=\"muted\">"
      << phrase(opt,
                "Relative L2 distance ||b \u2212 a|| / ||a|| of each step's latents from the first "
                "run's. A step where either side holds NaN/Inf counts as infinite (triangle).")
      << "</p>";
    std::vector<svg::Series> series;
    svg::PlotOptions po;
    po.title = plainPhrase(opt, "relative L2 distance of the latents (log scale)");
    po.xLabel = plainPhrase(opt, "step");
    po.logY = true;
    po.width = 1100;
    po.height = 260;
    bool any = false;
    std::ostringstream table;
    for (size_t i = 1; i < r.runs.size(); ++i) {
        const auto d = divergenceFromReference(r, i);
        svg::Series s;
        s.name = r.runs[i].label;
        s.color = runColor(i);
        table << "<h4 style=\"color:" << runColor(i) << "\">" << esc(r.runs[i].label)
              << "</h4><table><tr><th class=\"n\">" << phrase(opt, "step")
              << "</th><th class=\"n\">" << phrase(opt, "relative L2") << "</th><th>"
              << phrase(opt, "note") << "</th></tr>";
        for (const auto& st : d) {
            s.x.push_back(st.step);
            s.y.push_back(st.available && !st.nonFinite ? st.relativeL2 : NAN);
            if (st.available) any = true;
            if (st.nonFinite)
                po.marks.push_back({double(st.step), runColor(i),
                                    r.runs[i].label + ", " + stepText(opt, st.step) + ": " +
                                        plainPhrase(opt, "NaN/Inf in the latents")});
            table << "<tr" << (st.nonFinite ? " class=\"bad\"" : "") << "><td class=\"n\">"
                  << st.step << "</td><td class=\"n\">"
                  << (st.available ? num(st.relativeL2) : "\u2014") << "</td><td>"
                  << esc(st.nonFinite ? "NaN/Inf" : st.note) << "</td></tr>";
        }
        table << "</table>";
        series.push_back(std::move(s));
    }
    bool positive = false;
    for (const auto& se : series)
        for (double y : se.y) positive |= std::isfinite(y) && y > 0;
    po.logY = positive;
    if (!positive) po.title = plainPhrase(opt, "relative L2 distance of the latents");
    if (!any)
        o << "<p>"
          << phrase(opt,
                    "The runs did not keep their latents (RunConfig::keepLatents), so there is "
                    "nothing to compare step by step.")
          << "</p>";
    else
        o << "<div class=\"card\">" << svg::linePlot(series, po) << "<details><summary>"
          << phrase(opt, "per-step values") << "</summary>" << table.str() << "</details></div>";
    o << "</section>";
}

void bisection(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"bisection\"><h2>" << heading(opt, "report.section.bisection") << "</h2>";
    if (!r.bisection) {
        o << "<p class=\"muted\">" << phrase(opt, "No bisection was run for this report.")
          << "</p></section>";
        return;
    }
    const BisectionResult& b = *r.bisection;
    const std::string safe = formatName(b.safeFormat);
    o << "<div class=\"card\"><p><b>" << nameText(opt, bisectionStatusName(b.status)) << ":</b> "
      << say(opt, b.messageText, b.message) << "</p><table>";
    o << "<tr><th>" << phrase(opt, "safe format") << "</th><td>" << safe << "</td></tr><tr><th>"
      << phrase(opt, "tolerance") << "</th><td>" << num(b.tolerance) << " "
      << phrase(opt, "(image difference)") << "</td></tr><tr><th>" << phrase(opt, "candidates")
      << "</th><td>" << b.candidates.size() << ": <span class=\"mono\">"
      << blocksHtml(b.candidates, opt) << "</span></td></tr><tr><th>"
      << phrase(opt, "kept in %1", {safe}) << "</th><td class=\"mono\">"
      << blocksHtml(b.keptBlocks, opt) << "</td></tr></table><h4>" << phrase(opt, "Resulting plan")
      << "</h4><code class=\"plan\">" << esc(b.planText) << "</code>";
    o << "<h4>" << phrase(opt, "Trials") << "</h4><div class=\"scroll\"><table><tr>"
      << "<th class=\"n\">#</th><th>" << phrase(opt, "phase") << "</th><th>"
      << phrase(opt, "blocks in %1", {safe}) << "</th><th>" << phrase(opt, "result") << "</th><th>"
      << phrase(opt, "verdict") << "</th><th class=\"n\">NaN/Inf</th><th class=\"n\">"
      << phrase(opt, "difference") << "</th><th class=\"n\">" << phrase(opt, "s") << "</th><th>"
      << phrase(opt, "why") << "</th></tr>";
    for (const auto& t : b.trials)
        o << "<tr" << (t.passed ? "" : " class=\"bad\"") << "><td class=\"n\">" << t.iteration
          << "</td><td>" << nameText(opt, t.phase) << "</td><td class=\"mono\" title=\""
          << esc(t.planText) << "\">" << blocksHtml(t.safeBlocks, opt) << "</td><td class=\"nw\">"
          << passText(t.passed, opt) << "</td><td>"
          << (t.outcome.verdict.empty()
                  ? std::string()
                  : say(opt, {verdictNameMessage(t.outcome.verdict)}, t.outcome.verdict))
          << "</td><td class=\"n\">" << count(t.outcome.nonFinite) << "</td><td class=\"n\">"
          << num(t.outcome.difference) << "</td><td class=\"n\">" << num(t.outcome.seconds)
          << "</td><td>" << say(opt, t.whyMessage, t.why) << "</td></tr>";
    o << "</table></div></div></section>";
}

void advice(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"advice\"><h2>" << heading(opt, "report.section.advice") << "</h2>";
    if (!r.advice) {
        o << "<p class=\"muted\">" << phrase(opt, "No advice was computed for this report.")
          << "</p></section>";
        return;
    }
    const Advice& a = *r.advice;
    o << "<div class=\"card\">";
    if (a.device)
        o << "<p class=\"target\"><b>"
          << (a.device->target ? phrase(opt, "Target device:") : phrase(opt, "Device:")) << "</b> "
          << esc(a.device->describe())
          << (a.device->target ? " " + phrase(opt,
                                              "(the GPU the model will run on; the run itself "
                                              "was on the device under Environment)")
                               : "")
          << "</p>";
    o << "<p class=\"headline\">" << say(opt, a.headlineMessage, a.headline) << "</p>";
    if (!a.fixes.empty()) {
        o << "<ol class=\"fixes\">";
        for (const auto& f : a.fixes) {
            o << "<li><b>" << say(opt, f.actionMessage, f.action) << "</b>" << fixCheckHtml(f, opt)
              << "<br><span class=\"cost\">" << say(opt, f.costMessage, f.cost) << "</span>";
            if (!f.planText.empty()) o << "<code class=\"plan\">" << esc(f.planText) << "</code>";
            o << "</li>";
        }
        o << "</ol>";
    }
    if (!a.notes.empty()) {
        o << "<h4>" << phrase(opt, "Notes") << "</h4><ul>";
        // Messages only when they match the notes one for one (older reports have none).
        const bool messages = a.noteMessages.size() == a.notes.size();
        for (size_t k = 0; k < a.notes.size(); ++k)
            o << "<li>" << say(opt, messages ? a.noteMessages[k] : MessageText{}, a.notes[k])
              << "</li>";
        o << "</ul>";
    }
    o << "</div></section>";
}

}  // namespace hs::html
