// The findings sections of the HTML report: layer heatmap, first failure, headroom, latent
// divergence, bisection, advice.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "diagnosis/advice.h"
#include "diagnosis/blocks.h"
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
                          bool& byBlock, HeatmapCaps& caps) {
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
    if (pre) h.cols.push_back("text");
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
    if (post) h.cols.push_back("decode");
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
            std::string tip =
                h.rows[r] + " \u00b7 " +
                (h.cols[c] == "text" || h.cols[c] == "decode" ? h.cols[c] : "step " + h.cols[c]);
            if (a.maxAbs >= 0)
                tip += " \u00b7 |max| " + num(a.maxAbs) + " \u00b7 " + num(cell.value) +
                       " bits to 65504";
            if (a.nonFinite > 0) tip += " \u00b7 " + count(a.nonFinite) + " NaN/Inf";
            cell.tip = tip;
        }
    return h;
}

std::string pointStatus(const PointHeadroom& p) {
    if (!p.runsInFp16) return "not in fp16";
    if (p.overflows) return "overflows in fp16";
    if (p.saturates) return "saturates (rounds to 65504)";
    if (p.headroomBits < 1) return "under 1 bit";
    return "ok";
}

void headroomRow(std::ostringstream& o, const PointHeadroom& p, size_t index) {
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
      << pointStatus(p) << "</td></tr>";
}

const char* kHeadroomHead =
    "<tr><th class=\"n\">#</th><th>point</th><th>block</th><th class=\"n\">max |x|</th>"
    "<th class=\"n\">peak step</th><th class=\"n\">bits to 65504</th><th></th><th>fp16</th></tr>";

}  // namespace

void heatmaps(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"heatmap\"><h2>" << heading(opt, "report.section.heatmap")
      << "</h2><p class=\"muted\">Each row is a probe "
         "point in call order, each column a sampling step (\u201ctext\u201d: text encoding, "
         "\u201cdecode\u201d: VAE). The colour is the point's max |x| relative to fp16's limit "
         "65504, in bits of headroom. Hover a cell for its numbers.</p>"
      << svg::heatmapLegend();
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const ReportRun& run = r.runs[i];
        o << "<div class=\"card\">" << runHeading(r, i);
        if (run.record.probes.empty()) {
            o << "<p class=\"muted\">No probe points recorded (probe level "
              << probeLevelName(run.record.config.probeLevel) << ").</p></div>";
            continue;
        }
        bool byBlock = false;
        HeatmapCaps caps;
        svg::Heatmap h =
            buildHeatmap(run.record, run.findings.firstFailure, opt.maxHeatmapRows, byBlock, caps);
        h.title = run.label + " layer heatmap";
        if (byBlock)
            o << "<p class=\"muted\">" << h.rows.size() << " blocks (too many points for one row "
              << "each: a block's row shows its largest point).</p>";
        if (caps.probesOffSteps || caps.rowsLeftOut || caps.stepsLeftOut)
            o << "<p class=\"warn\">Not shown: " << caps.probesOffSteps
              << " probe records at steps this run does not have, " << caps.rowsLeftOut
              << " rows past the first " << opt.maxHeatmapRows << " and " << caps.stepsLeftOut
              << " steps past the first " << kMaxHeatmapSteps << ".</p>";
        o << "<div class=\"scroll\">" << svg::heatmap(h) << "</div></div>";
    }
    o << "</section>";
}

void firstFailures(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"first-failure\"><h2>" << heading(opt, "report.section.first_failure")
      << "</h2><div class=\"runs\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        o << "<div class=\"card\">" << runHeading(r, i);
        const auto& ff = r.runs[i].findings.firstFailure;
        if (!ff) {
            o << "<p>No NaN or Inf in this run.</p></div>";
            continue;
        }
        o << "<table>";
        auto row = [&](const std::string& k, const std::string& v) {
            o << "<tr><th>" << k << "</th><td>" << v << "</td></tr>";
        };
        row("kind", esc(ff->kindText()));
        row("point", "<span class=\"mono\">" + esc(ff->point) + "</span>");
        row("block", "<span class=\"mono\">" + esc(ff->block) + "</span>");
        row("component", esc(ff->component));
        row("step", ff->step >= 0 ? std::to_string(ff->step) : "outside the loop");
        row("ran in", formatName(ff->format) + " " + executionName(ff->execution) +
                          (ff->fromProbe ? ", " + probeLevelName(ff->granularity) + " point" : ""));
        if (ff->inputPoint)
            row("point before it",
                "<span class=\"mono\">" + esc(*ff->inputPoint) + "</span>" +
                    (ff->inputStep >= 0 ? " (step " + std::to_string(ff->inputStep) + ")" : "") +
                    ", |max| " + num(ff->inputAbsMax) + " (" +
                    num(fp16HeadroomBits(ff->inputAbsMax)) + " bits to 65504)");
        o << "</table><h4>How it spread</h4><div class=\"chain\">";
        for (size_t k = 0; k < ff->chain.size(); ++k) {
            const auto& l = ff->chain[k];
            if (k) o << "<span class=\"arrow\">\u2192</span>";
            o << "<span class=\"pill" << (k == 0 ? " origin" : "") << "\" title=\""
              << esc(l.point + ": " + count(l.nonFinite) + " non-finite values") << "\">"
              << esc(l.text()) << "</span>";
        }
        o << "</div>";
        if (!ff->reachedImage) o << "<p class=\"muted\">It did not reach the image.</p>";
        o << "</div>";
    }
    o << "</div></section>";
}

void headroom(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"headroom\"><h2>" << heading(opt, "report.section.headroom")
      << "</h2><p class=\"muted\">Bits "
         "of headroom = log2(65504 / max|x|) over the whole run. A value overflows to Inf in "
         "fp16 when |x| \u2265 65520 (round to nearest even); between 65504 and 65520 it "
         "rounds down to 65504.</p><div class=\"stack\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const HeadroomReport& h = r.runs[i].findings.headroom;
        o << "<div class=\"card\">" << runHeading(r, i);
        if (h.points.empty()) {
            o << "<p class=\"muted\">No probe points recorded.</p></div>";
            continue;
        }
        if (!h.reliable) o << "<p><b>Caution:</b> " << say(opt, h.noteMessage, h.note) << ".</p>";
        if (h.firstFailure)
            o << "<p><b>Predicted first fp16 failure:</b> <span class=\"mono\">"
              << esc(h.firstFailure->point) << "</span> (block <span class=\"mono\">"
              << esc(h.firstFailure->block) << "</span>"
              << (h.firstFailure->step >= 0 ? ", step " + std::to_string(h.firstFailure->step) : "")
              << "), max |x| " << num(h.firstFailure->maxAbs) << ".</p>";
        else
            o << "<p>No point reaches 65520: none is predicted to overflow in fp16. Least "
                 "headroom: "
              << num(h.minHeadroomBits) << " bits.</p>";
        if (!h.overflowing.empty()) {
            o << "<p><b>" << h.overflowing.size()
              << (h.overflowing.size() == 1 ? " point" : " points")
              << " predicted to overflow</b> (call order): <span class=\"mono\">";
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
        o << "<h4>Closest to the limit</h4><div class=\"scroll\"><table>" << kHeadroomHead;
        for (size_t k = 0; k < order.size() && int(k) < opt.headroomTopRows; ++k)
            headroomRow(o, h.points[order[k]], order[k]);
        o << "</table></div><details><summary>all " << h.points.size()
          << " points in call order</summary><div class=\"scroll\"><table>" << kHeadroomHead;
        for (size_t k = 0; k < h.points.size(); ++k) headroomRow(o, h.points[k], k);
        o << "</table></div></details></div>";
    }
    o << "</div></section>";
}

void divergence(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    if (r.runs.size() < 2) return;
    o << "<section id=\"divergence\"><h2>"
      << say(opt, {{"report.section.divergence", {r.runs[0].label}}},
             "Latent divergence from " + r.runs[0].label)
      << "</h2><p class=\"muted\">Relative L2 distance ||b \u2212 a|| / ||a|| of each step's "
         "latents from the first run's. A step where either side holds NaN/Inf counts as "
         "infinite (triangle).</p>";
    std::vector<svg::Series> series;
    svg::PlotOptions po;
    po.title = "relative L2 distance of the latents (log scale)";
    po.xLabel = "step";
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
              << "</h4><table><tr><th class=\"n\">step</th><th class=\"n\">relative "
                 "L2</th><th>note</th></tr>";
        for (const auto& st : d) {
            s.x.push_back(st.step);
            s.y.push_back(st.available && !st.nonFinite ? st.relativeL2 : NAN);
            if (st.available) any = true;
            if (st.nonFinite)
                po.marks.push_back({double(st.step), runColor(i),
                                    r.runs[i].label + ", step " + std::to_string(st.step) +
                                        ": NaN/Inf in the latents"});
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
    if (!positive) po.title = "relative L2 distance of the latents";
    if (!any)
        o << "<p>The runs did not keep their latents (RunConfig::keepLatents), so there is "
             "nothing to compare step by step.</p>";
    else
        o << "<div class=\"card\">" << svg::linePlot(series, po)
          << "<details><summary>per-step values</summary>" << table.str() << "</details></div>";
    o << "</section>";
}

void bisection(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"bisection\"><h2>" << heading(opt, "report.section.bisection") << "</h2>";
    if (!r.bisection) {
        o << "<p class=\"muted\">No bisection was run for this report.</p></section>";
        return;
    }
    const BisectionResult& b = *r.bisection;
    o << "<div class=\"card\"><p><b>" << esc(bisectionStatusName(b.status)) << ":</b> "
      << esc(b.message) << "</p><table>";
    o << "<tr><th>safe format</th><td>" << formatName(b.safeFormat) << "</td></tr>"
      << "<tr><th>tolerance</th><td>" << num(b.tolerance) << " (image difference)</td></tr>"
      << "<tr><th>candidates</th><td>" << b.candidates.size() << ": <span class=\"mono\">"
      << esc(describeBlocks(b.candidates)) << "</span></td></tr>"
      << "<tr><th>kept in " << formatName(b.safeFormat) << "</th><td class=\"mono\">"
      << esc(b.keptBlocks.empty() ? std::string("none") : describeBlocks(b.keptBlocks))
      << "</td></tr></table><h4>Resulting plan</h4><code class=\"plan\">" << esc(b.planText)
      << "</code>";
    o << "<h4>Trials</h4><div class=\"scroll\"><table><tr><th class=\"n\">#</th><th>phase</th>"
         "<th>blocks in "
      << formatName(b.safeFormat)
      << "</th><th>result</th><th>verdict</th>"
         "<th class=\"n\">NaN/Inf</th><th class=\"n\">difference</th><th class=\"n\">s</th>"
         "<th>why</th></tr>";
    for (const auto& t : b.trials)
        o << "<tr" << (t.passed ? "" : " class=\"bad\"") << "><td class=\"n\">" << t.iteration
          << "</td><td>" << esc(t.phase) << "</td><td class=\"mono\" title=\"" << esc(t.planText)
          << "\">" << esc(describeBlocks(t.safeBlocks)) << "</td><td class=\"nw\">"
          << (t.passed ? "\u2713 pass" : "\u2717 fail") << "</td><td>" << esc(t.outcome.verdict)
          << "</td><td class=\"n\">" << count(t.outcome.nonFinite) << "</td><td class=\"n\">"
          << num(t.outcome.difference) << "</td><td class=\"n\">" << num(t.outcome.seconds)
          << "</td><td>" << esc(t.why) << "</td></tr>";
    o << "</table></div></div></section>";
}

void advice(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"advice\"><h2>" << heading(opt, "report.section.advice") << "</h2>";
    if (!r.advice) {
        o << "<p class=\"muted\">No advice was computed for this report.</p></section>";
        return;
    }
    const Advice& a = *r.advice;
    o << "<div class=\"card\">";
    if (a.device)
        o << "<p class=\"target\"><b>" << (a.device->target ? "Target device" : "Device")
          << ":</b> " << esc(a.device->describe())
          << (a.device->target ? " (the GPU the model will run on; the run itself was on the "
                                 "device under Environment)"
                               : "")
          << "</p>";
    o << "<p class=\"headline\">" << say(opt, a.headlineMessage, a.headline) << "</p>";
    if (!a.fixes.empty()) {
        o << "<ol class=\"fixes\">";
        for (const auto& f : a.fixes) {
            o << "<li><b>" << say(opt, f.actionMessage, f.action) << "</b>" << esc(fixCheckText(f))
              << "<br><span class=\"cost\">" << say(opt, f.costMessage, f.cost) << "</span>";
            if (!f.planText.empty()) o << "<code class=\"plan\">" << esc(f.planText) << "</code>";
            o << "</li>";
        }
        o << "</ol>";
    }
    if (!a.notes.empty()) {
        o << "<h4>Notes</h4><ul>";
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
