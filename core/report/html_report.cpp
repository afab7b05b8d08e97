#include "report/html_report.h"

#include <cmath>

#include "diagnosis/blocks.h"
#include "diagnosis/image_verdict.h"
#include "io/atomic_file.h"
#include "report/html_sections.h"
#include "report/html_util.h"
#include "report/svg_plot.h"

namespace hs {

namespace html {

namespace {

const char* kStyle = R"CSS(
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--bg:#f6f7f9;--card:#fff;--bad:#c62828;--ok:#2e7d32}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:1280px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:0 0 8px}h4{font-size:14px;margin:12px 0 6px}
.meta,.muted{color:var(--muted)}
.runs{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px;align-items:start}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:12px 14px;overflow-x:auto}
.verdict{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;font-size:13px;color:#fff;margin-left:6px;vertical-align:middle}
.v-ok{background:var(--ok)}.v-naninf{background:var(--bad)}.v-black{background:#111}.v-flat{background:#777}.v-none{background:#999}
table{border-collapse:collapse;font-size:13px;margin:4px 0}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef0f4;font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.nw{white-space:nowrap}tr.bad td{background:#fdecec}tr.warn td{background:#fff6e0}tr.dim td{color:#9aa1ad}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
code.plan{display:block;white-space:pre-wrap;background:#f0f2f6;border:1px solid var(--line);border-radius:4px;padding:6px 8px;word-break:break-all}
.figs{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}
figure{margin:0;text-align:center;font-size:11px;color:var(--muted)}
figure img{display:block;image-rendering:pixelated;border:1px solid var(--line);background:#fff}
.big img{width:192px;height:auto}.thumb img{width:72px;height:auto}
.chain{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin:6px 0}
.pill{background:#eef0f4;border:1px solid var(--line);border-radius:12px;padding:2px 10px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.pill.origin{background:#fdecec;border-color:#e57373}.arrow{color:var(--muted)}
.headline{font-size:15px;background:#fff;border-left:4px solid #1f77b4;padding:8px 12px;margin:12px 0}
ol.fixes>li{margin:0 0 10px}ol.fixes .cost{color:var(--muted)}
svg{max-width:100%;height:auto}svg.heat{max-width:none}
.plots{display:flex;flex-wrap:wrap;gap:12px}
.ptitle{font-size:13px;font-weight:600;fill:#1d2330}.plegend,.ptick,.htick{font-size:10.5px;fill:#444}
.paxis{font-size:11px;fill:#555}.pref{font-size:10.5px;font-weight:600}
.hrow{font-size:10px;font-family:ui-monospace,Menlo,Consolas,monospace;fill:#333}.hmark{font-size:10px;font-weight:700;fill:#000}
.scroll{overflow-x:auto}section>.card,.stack>.card{margin-bottom:12px}
details>summary{cursor:pointer;color:#1f5fa8;margin:6px 0}
.bar{display:inline-block;height:9px;background:#1f77b4;vertical-align:middle}.bar.neg{background:var(--bad)}
footer{margin-top:40px;color:var(--muted);font-size:12px}
)CSS";

}  // namespace

std::string runColor(size_t i) {
    static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                   "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    return colors[i % 8];
}

std::string runHeading(const Report& r, size_t i, const HtmlReportOptions& opt) {
    const std::string& label = r.runs[i].label;
    return "<h3 style=\"color:" + runColor(i) + "\">" +
           (label.empty() ? phrase(opt, "run %1", {std::to_string(i + 1)}) : esc(label)) + "</h3>";
}

std::string plainPhrase(const HtmlReportOptions& opt, const char* english,
                        const std::vector<std::string>& args) {
    const std::string text = opt.translate ? opt.translate({"", english}) : std::string(english);
    return fillTemplate(text, args);
}

std::string phrase(const HtmlReportOptions& opt, const char* english,
                   const std::vector<std::string>& args) {
    return esc(plainPhrase(opt, english, args));
}

std::string phraseHtml(const HtmlReportOptions& opt, const char* english,
                       const std::vector<std::string>& htmlArgs) {
    return fillTemplate(esc(plainPhrase(opt, english)), htmlArgs);
}

std::string stepText(const HtmlReportOptions& opt, int step) {
    return plainPhrase(opt, "step %1", {std::to_string(step)});
}

std::string ranIn(const HtmlReportOptions& opt, Format format, Execution execution) {
    return execution == Execution::Native ? phrase(opt, "%1 native", {formatName(format)})
                                          : phrase(opt, "%1 emulated", {formatName(format)});
}

std::string nameText(const HtmlReportOptions& opt, const std::string& name) {
    return phrase(opt, name.c_str());
}

namespace {

std::string verdictClass(const std::string& v) {
    if (v == "ok") return "v-ok";
    if (v == "nan/inf") return "v-naninf";
    if (v == "black") return "v-black";
    if (v == "flat") return "v-flat";
    return "v-none";
}

// `caption`: escaped.
void figure(std::ostringstream& o, const PreviewImage& p, const std::string& caption,
            const char* cls) {
    const std::string uri = pngDataUri(p);
    if (uri.empty()) return;
    o << "<figure class=\"" << cls << "\"><img src=\"" << uri << "\" width=\"" << p.width
      << "\" height=\"" << p.height << "\" alt=\"" << caption << "\"><figcaption>" << caption
      << "</figcaption></figure>";
}

std::string nonFiniteText(const TensorStats& s) {
    if (s.allFinite()) return "0";
    return count(s.nan) + " NaN, " + count(s.posInf) + " +Inf, " + count(s.negInf) + " −Inf";
}

// A table row: the key (escaped) and its value (HTML).
void kv(std::ostringstream& o, const std::string& kHtml, const std::string& vHtml) {
    o << "<tr><th>" << kHtml << "</th><td>" << vHtml << "</td></tr>";
}

std::string planHtml(const std::string& text, const HtmlReportOptions& opt) {
    if (text.empty())
        return "<span class=\"muted\">" + phrase(opt, "(none: stored dtypes)") + "</span>";
    std::string s;
    size_t start = 0;
    while (true) {
        size_t c = text.find(',', start);
        s += esc(text.substr(start, c == std::string::npos ? std::string::npos : c - start));
        if (c == std::string::npos) break;
        s += ",\n";
        start = c + 1;
    }
    return "<code class=\"plan\">" + s + "</code>";
}

}  // namespace

std::string say(const HtmlReportOptions& opt, const MessageText& m, const std::string& english) {
    return esc(renderText(m, english, opt.translate));
}

std::string heading(const HtmlReportOptions& opt, const char* id) {
    const Message m{id, {}};
    return say(opt, {m}, englishText(m));
}

void summary(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"summary\"><h2>" << heading(opt, "report.section.summary")
      << "</h2><div class=\"runs\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const ReportRun& run = r.runs[i];
        const RunRecord& rec = run.record;
        o << "<div class=\"card\" style=\"border-top:4px solid " << runColor(i) << "\">"
          << runHeading(r, i, opt);
        const Message verdictName = verdictNameMessage(rec.verdict);
        o << "<p>" << heading(opt, "report.label.verdict") << " <span class=\"verdict "
          << verdictClass(rec.verdict) << "\">"
          << (rec.verdict.empty() ? phrase(opt, "none") : say(opt, {verdictName}, rec.verdict))
          << "</span></p>";
        if (!rec.verdictExplanation.empty())
            o << "<p class=\"muted\">" << say(opt, rec.verdictMessage, rec.verdictExplanation)
              << "</p>";
        o << "<div class=\"figs\">";
        if (rec.finalImage)
            figure(o, *rec.finalImage, phrase(opt, "decoded (NaN magenta, Inf cyan)"), "big");
        if (rec.savedImage) figure(o, *rec.savedImage, phrase(opt, "as saved (NaN as 0)"), "big");
        o << "</div>";
        if (run.findings.firstFailure) {
            const FirstFailure& ff = *run.findings.firstFailure;
            o << "<p><b>" << heading(opt, "report.label.first_failure") << "</b> "
              << say(opt, ff.summaryMessage(), ff.summary()) << "</p>";
            o << "<p><b>" << phrase(opt, "Spread:") << "</b> <span class=\"mono\">"
              << chainHtml(*run.findings.firstFailure, opt) << "</span></p>";
        } else {
            o << "<p>" << phrase(opt, "No NaN or Inf anywhere in the recorded run.");
            const auto& h = run.findings.headroom;
            if (!h.points.empty() && std::isfinite(h.minHeadroomBits)) {
                if (h.minHeadroomBits >= 0)
                    o << " "
                      << phrase(opt, "Closest point to fp16's limit: %1 bits of headroom.",
                                {num(h.minHeadroomBits)});
                else
                    o << " "
                      << phrase(opt, "Its largest value is %1 bits above fp16's limit.",
                                {num(-h.minHeadroomBits)});
            }
            if (h.firstFailure)
                o << " <b>"
                  << (h.firstFailure->step >= 0
                          ? phrase(opt, "In fp16, %1 would overflow at step %2.",
                                   {h.firstFailure->point, std::to_string(h.firstFailure->step)})
                          : phrase(opt, "In fp16, %1 would overflow.", {h.firstFailure->point}))
                  << "</b>";
            o << "</p>";
        }
        if (rec.cancelled)
            o << "<p><b>" << phrase(opt, "The run was cancelled before it finished.") << "</b></p>";
        if (!rec.error.empty())
            o << "<p><b>" << phrase(opt, "Error:") << "</b> " << esc(rec.error) << "</p>";
        o << "<p class=\"muted\">"
          << phrase(opt, "%1 steps, %2 probe records, %3 s",
                    {std::to_string(rec.steps.size()), count(int64_t(rec.probes.size())),
                     num(rec.seconds)});
        if (rec.estimate && rec.estimate->seconds >= 0) {
            o << phrase(opt, "; estimated after its second step: %1 s",
                        {num(rec.estimate->seconds)});
            if (rec.estimate->weightBytes >= 0)
                o << (rec.estimate->activationBytes >= 0
                          ? phrase(opt, ", %1 GB of memory (weights %2 GB + activations %3 GB)",
                                   {num(rec.estimate->bytes / 1e9),
                                    num(rec.estimate->weightBytes / 1e9),
                                    num(rec.estimate->activationBytes / 1e9)})
                          : phrase(opt,
                                   ", %1 GB of memory (weights only: activations not measured on "
                                   "this device)",
                                   {num(rec.estimate->bytes / 1e9)}));
        }
        o << "</p></div>";
    }
    o << "</div>";
    if (r.advice) {
        o << "<p class=\"headline\"><b>" << heading(opt, "report.label.diagnosis") << "</b> "
          << say(opt, r.advice->headlineMessage, r.advice->headline);
        if (r.advice->device && r.advice->device->target)
            o << "<br><b>" << phrase(opt, "Advice for:") << "</b> "
              << esc(r.advice->device->describe());
        if (!r.advice->fixes.empty())
            o << "<br><b>" << heading(opt, "report.label.suggested_fix") << "</b> "
              << say(opt, r.advice->fixes.front().actionMessage, r.advice->fixes.front().action)
              << " (" << say(opt, r.advice->fixes.front().costMessage, r.advice->fixes.front().cost)
              << ")";
        o << "</p>";
    }
    o << "</section>";
}

void environment(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    const ReportEnvironment& e = r.environment;
    auto orDash = [](const std::string& s) { return s.empty() ? std::string("\u2014") : esc(s); };
    o << "<section id=\"environment\"><h2>" << heading(opt, "report.section.environment")
      << "</h2><table>";
    kv(o, "Halfscope", orDash(e.halfscopeVersion));
    kv(o, "LibTorch", orDash(e.libtorchVersion));
    kv(o, phrase(opt, "Device"), orDash(e.device));
    kv(o, phrase(opt, "Compute capability"), orDash(e.computeCapability));
    kv(o, "CPU", orDash(e.cpu));
    kv(o, phrase(opt, "bf16 on the CPU"),
       e.cpuBf16.empty() ? "\u2014" : say(opt, e.cpuBf16Message, e.cpuBf16));
    kv(o, phrase(opt, "Threads"), e.threads > 0 ? std::to_string(e.threads) : "\u2014");
    kv(o, phrase(opt, "Operating system"), orDash(e.os));
    kv(o, phrase(opt, "Report created"), orDash(r.createdAt));
    o << "</table></section>";
}

void components(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"components\"><h2>" << heading(opt, "report.section.components")
      << "</h2><div class=\"runs\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const RunRecord& rec = r.runs[i].record;
        o << "<div class=\"card\">" << runHeading(r, i, opt) << "<p class=\"muted mono\">"
          << esc(rec.config.modelDir);
        const ModelFiles& f = rec.config.modelFiles;
        for (const std::string* extra : {&f.vae, &f.textEncoder, &f.textEncoder2})
            if (!extra->empty()) o << "<br>+ " << esc(*extra);
        o << "</p><table><tr><th>" << phrase(opt, "component") << "</th><th>"
          << phrase(opt, "class") << "</th><th>" << phrase(opt, "stored") << "</th><th class=\"n\">"
          << phrase(opt, "parameters") << "</th><th>" << phrase(opt, "runs in") << "</th></tr>";
        for (const auto& c : rec.components)
            o << "<tr><td>" << esc(c.name) << "</td><td>" << esc(c.className) << "</td><td>"
              << esc(c.storedDtype) << "</td><td class=\"n\">" << count(c.parameters) << "</td><td>"
              << ranIn(opt, c.format, c.execution) << "</td></tr>";
        o << "</table></div>";
    }
    o << "</div></section>";
}

void plans(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"plans\"><h2>" << heading(opt, "report.section.plans")
      << "</h2><div class=\"runs\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const RunConfig& c = r.runs[i].record.config;
        o << "<div class=\"card\">" << runHeading(r, i, opt) << "<table>";
        kv(o, phrase(opt, "Prompt"), esc(c.prompt));
        kv(o, phrase(opt, "Negative prompt"),
           c.negativePrompt.empty() ? "\u2014" : esc(c.negativePrompt));
        kv(o, phrase(opt, "Seed"), std::to_string(c.seed));
        kv(o, phrase(opt, "Steps"), std::to_string(c.steps));
        kv(o, phrase(opt, "Guidance"), num(c.guidance));
        kv(o, phrase(opt, "Size"), std::to_string(c.width) + " \u00d7 " + std::to_string(c.height));
        kv(o, phrase(opt, "Scheduler shift"), c.shift ? num(*c.shift) : phrase(opt, "default"));
        kv(o, phrase(opt, "Device"), esc(c.device));
        kv(o, phrase(opt, "Probe level"), nameText(opt, probeLevelName(c.probeLevel)));
        o << "</table><h4>" << phrase(opt, "Plan (user rules)") << "</h4>"
          << planHtml(c.plan.toString(), opt) << "<h4>"
          << phrase(opt, "Effective plan (stored dtypes + rules, last match wins)") << "</h4>"
          << planHtml(r.runs[i].record.effectivePlan, opt) << "</div>";
    }
    o << "</div></section>";
}

void stepCurves(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"steps\"><h2>" << heading(opt, "report.section.steps") << "</h2>";
    std::vector<svg::Series> absMax;
    svg::PlotOptions po;
    po.title = plainPhrase(opt, "latent |max| per step (log scale)");
    po.xLabel = plainPhrase(opt, "step");
    po.yLabel = "|max|";
    po.logY = true;
    po.width = 1100;
    po.height = 300;
    po.lines.push_back({kFp16Max, "fp16 max 65504", "#d62728"});
    for (size_t i = 0; i < r.runs.size(); ++i) {
        svg::Series s;
        s.name = r.runs[i].label;
        s.color = runColor(i);
        for (const auto& st : r.runs[i].record.steps) {
            s.x.push_back(st.step);
            s.y.push_back(st.latent.absMax);
            if (!st.latent.allFinite())
                po.marks.push_back({double(st.step), runColor(i),
                                    r.runs[i].label + ", " + stepText(opt, st.step) + ": " +
                                        nonFiniteText(st.latent)});
        }
        absMax.push_back(std::move(s));
    }
    o << "<div class=\"card\">" << svg::linePlot(absMax, po) << "<p class=\"muted\">"
      << phrase(opt,
                "Triangles above the plot mark steps whose latents hold NaN or Inf (no line: no "
                "finite value left). The dashed red line is fp16's largest finite value.")
      << "</p></div><div class=\"runs\">";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const RunRecord& rec = r.runs[i].record;
        svg::PlotOptions p;
        p.title = plainPhrase(opt, "latent min / max / mean ± std");
        p.xLabel = plainPhrase(opt, "step");
        p.width = 520;
        const std::string mean = plainPhrase(opt, "mean");
        std::vector<svg::Series> s(5);
        s[0].name = "max", s[0].color = "#d62728";
        s[1].name = "min", s[1].color = "#1f77b4";
        s[2].name = mean, s[2].color = "#333";
        s[3].name = mean + "+std", s[3].color = "#888", s[3].dashed = true;
        s[4].name = mean + "-std", s[4].color = "#888", s[4].dashed = true;
        for (const auto& st : rec.steps) {
            const double x = st.step;
            for (auto& se : s) se.x.push_back(x);
            s[0].y.push_back(st.latent.max);
            s[1].y.push_back(st.latent.min);
            s[2].y.push_back(st.latent.mean);
            s[3].y.push_back(st.latent.mean + st.latent.std);
            s[4].y.push_back(st.latent.mean - st.latent.std);
            if (!st.latent.allFinite())
                p.marks.push_back(
                    {x, "#ff00ff", stepText(opt, st.step) + ": " + nonFiniteText(st.latent)});
        }
        o << "<div class=\"card\">" << runHeading(r, i, opt) << svg::linePlot(s, p);
        o << "<details><summary>" << phrase(opt, "per-step table")
          << "</summary><div class=\"scroll\"><table><tr><th class=\"n\">" << phrase(opt, "step")
          << "</th><th class=\"n\">sigma</th><th class=\"n\">min</th><th class=\"n\">max</th>"
             "<th class=\"n\">|max|</th><th class=\"n\">"
          << phrase(opt, "mean")
          << "</th><th class=\"n\">std</th><th>NaN / Inf</th><th class=\"n\">"
          << phrase(opt, "velocity |max|") << "</th><th class=\"n\">x0 |max|</th><th class=\"n\">"
          << phrase(opt, "s") << "</th></tr>";
        for (const auto& st : rec.steps) {
            const auto& l = st.latent;
            o << "<tr" << (l.allFinite() ? "" : " class=\"bad\"") << "><td class=\"n\">" << st.step
              << "</td><td class=\"n\">" << num(st.sigma) << "</td><td class=\"n\">" << num(l.min)
              << "</td><td class=\"n\">" << num(l.max) << "</td><td class=\"n\">" << num(l.absMax)
              << "</td><td class=\"n\">" << num(l.mean) << "</td><td class=\"n\">" << num(l.std)
              << "</td><td>" << nonFiniteText(l) << "</td><td class=\"n\">"
              << num(st.velocity.absMax) << "</td><td class=\"n\">" << num(st.denoised.absMax)
              << "</td><td class=\"n\">" << num(st.seconds) << "</td></tr>";
        }
        o << "</table></div></details></div>";
    }
    o << "</div></section>";
}

void previews(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    o << "<section id=\"previews\"><h2>" << heading(opt, "report.section.previews")
      << "</h2><p class=\"muted\">"
      << phrase(opt,
                "The denoised estimate after each step (latent-to-RGB projection, or a full VAE "
                "decode where marked). NaN pixels are magenta and Inf cyan, never black.")
      << "</p>";
    for (size_t i = 0; i < r.runs.size(); ++i) {
        const RunRecord& rec = r.runs[i].record;
        o << "<div class=\"card\">" << runHeading(r, i, opt) << "<div class=\"figs\">";
        const size_t n = rec.previews.size();
        const size_t keep = std::max<size_t>(1, size_t(std::max(opt.maxPreviews, 1)));
        size_t last = size_t(-1);
        for (size_t k = 0; k < std::min(n, keep); ++k) {
            const size_t idx = n <= keep ? k : k * (n - 1) / (keep - 1 ? keep - 1 : 1);
            if (idx == last) continue;
            last = idx;
            const PreviewImage& p = rec.previews[idx];
            figure(o, p, esc(stepText(opt, p.step)) + (p.fullDecode ? " (VAE)" : ""), "thumb");
        }
        if (rec.finalImage) figure(o, *rec.finalImage, phrase(opt, "final"), "thumb");
        if (n == 0 && !rec.finalImage)
            o << "<p class=\"muted\">" << phrase(opt, "No previews recorded.") << "</p>";
        o << "</div></div>";
    }
    o << "</section>";
}

}  // namespace html

std::string reportToHtml(const Report& report, const HtmlReportOptions& options) {
    std::ostringstream o;
    o << "<!DOCTYPE html><html lang=\""
      << html::esc(options.translate ? options.language : std::string("en"))
      << "\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src "
         "data:; style-src 'unsafe-inline'\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta name=\"generator\" content=\"Halfscope "
      << html::esc(HALFSCOPE_VERSION) << "\"><title>" << html::esc(report.title)
      << "</title><style>" << html::kStyle << "</style></head><body><main>";
    const std::string runs = std::to_string(report.runs.size());
    o << "<header><h1>" << html::esc(report.title) << "</h1><p class=\"meta\">"
      << (report.runs.size() == 1 ? html::phrase(options, "%1 run", {runs})
                                  : html::phrase(options, "%1 runs side by side", {runs}))
      << " \u00b7 " << html::phrase(options, "created %1", {report.createdAt})
      << " \u00b7 Halfscope " << html::esc(report.environment.halfscopeVersion) << "</p></header>";
    if (report.runs.empty())
        o << "<p>" << html::phrase(options, "This report holds no run.") << "</p>";
    // The sections in the order the report reads (html_sections.h).
    for (const auto section :
         {html::summary, html::environment, html::components, html::plans, html::stepCurves,
          html::previews, html::heatmaps, html::firstFailures, html::headroom, html::divergence,
          html::bisection, html::remedies, html::advice})
        section(o, report, options);
    o << "<footer>"
      << html::phrase(options,
                      "Generated by Halfscope %1. This file is self-contained: it loads nothing "
                      "from anywhere.",
                      {HALFSCOPE_VERSION})
      << "</footer></main></body></html>\n";
    return o.str();
}

void writeReportHtml(const std::string& path, const Report& report,
                     const HtmlReportOptions& options) {
    const std::string text = reportToHtml(report, options);
    writeFileAtomically(path, text.data(), text.size());
}

}  // namespace hs
