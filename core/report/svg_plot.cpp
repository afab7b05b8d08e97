#include "report/svg_plot.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/html_util.h"

namespace hs::svg {

namespace {

using html::esc;

std::string f1(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

// "Nice" ticks (1, 2, 5 x 10^k) covering [lo, hi].
std::vector<double> niceTicks(double lo, double hi, int target) {
    std::vector<double> t;
    if (!(hi > lo)) return {lo};
    const double raw = (hi - lo) / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    return t;
}

std::string tickLabel(double v, bool log) {
    if (log) {
        const int e = int(std::lround(std::log10(v)));
        if (e >= -2 && e <= 4) return html::num(std::pow(10.0, e));
        return "1e" + std::to_string(e);
    }
    return html::num(v);
}

struct Rgb {
    double r, g, b;
};

std::string hex(const Rgb& c) {
    char b[8];
    std::snprintf(b, sizeof b, "#%02x%02x%02x", int(std::lround(c.r)), int(std::lround(c.g)),
                  int(std::lround(c.b)));
    return b;
}

}  // namespace

namespace {

// The plot area and the data-to-pixel mapping of a linePlot.
struct Frame {
    double left = 64, right = 16, top = 46, bottom = 40;
    double W = 0, H = 0, pw = 0, ph = 0;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    bool logY = false;
    std::vector<double> yticks;

    bool usable(double y) const { return std::isfinite(y) && (!logY || y > 0); }
    bool shown(double y) const { return usable(y) && y >= ymin && y <= ymax; }
    double X(double x) const { return left + (x - xmin) / (xmax - xmin) * pw; }
    double Y(double y) const {
        const double t =
            logY ? std::log10(y / ymin) / std::log10(ymax / ymin) : (y - ymin) / (ymax - ymin);
        return top + (1 - t) * ph;
    }
};

// Ranges over every series, reference line and mark; decades on a log axis, padded nice ticks
// on a linear one.
Frame frameFor(const std::vector<Series>& series, const PlotOptions& o) {
    Frame f;
    f.W = o.width, f.H = o.height, f.logY = o.logY;
    f.pw = f.W - f.left - f.right, f.ph = f.H - f.top - f.bottom;
    for (const auto& s : series)
        for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
            f.xmin = std::min(f.xmin, s.x[i]);
            f.xmax = std::max(f.xmax, s.x[i]);
            if (!f.usable(s.y[i])) continue;
            f.ymin = std::min(f.ymin, s.y[i]);
            f.ymax = std::max(f.ymax, s.y[i]);
        }
    for (const auto& l : o.lines)
        if (f.usable(l.y)) f.ymin = std::min(f.ymin, l.y), f.ymax = std::max(f.ymax, l.y);
    for (const auto& m : o.marks) f.xmin = std::min(f.xmin, m.x), f.xmax = std::max(f.xmax, m.x);
    if (!std::isfinite(f.xmin)) f.xmin = 0, f.xmax = 1;
    if (f.xmax <= f.xmin) f.xmin -= 0.5, f.xmax += 0.5;
    if (!std::isfinite(f.ymin)) f.ymin = o.logY ? 1 : 0, f.ymax = o.logY ? 10 : 1;
    if (o.logY) {
        f.ymin = std::pow(10.0, std::floor(std::log10(f.ymin)));
        f.ymax = std::pow(10.0, std::ceil(std::log10(f.ymax)));
        if (f.ymax <= f.ymin) f.ymax = f.ymin * 10;
        const int decades = int(std::lround(std::log10(f.ymax / f.ymin)));
        const int every = decades > 8 ? 2 : 1;
        for (int e = 0; e <= decades; e += every) f.yticks.push_back(f.ymin * std::pow(10.0, e));
    } else {
        if (f.ymax <= f.ymin) f.ymin -= 1, f.ymax += 1;
        const double pad = 0.05 * (f.ymax - f.ymin);
        f.ymin -= pad, f.ymax += pad;
        f.yticks = niceTicks(f.ymin, f.ymax, 5);
    }
    return f;
}

void writeLegend(std::ostringstream& s, const Frame& f, const std::vector<Series>& series) {
    double lx = f.left;
    for (const auto& se : series) {
        s << "<line x1=\"" << f1(lx) << "\" y1=\"30\" x2=\"" << f1(lx + 18)
          << "\" y2=\"30\" stroke=\"" << se.color << "\" stroke-width=\"2.5\""
          << (se.dashed ? " stroke-dasharray=\"5 3\"" : "") << "/>";
        s << "<text x=\"" << f1(lx + 22) << "\" y=\"34\" class=\"plegend\">" << esc(se.name)
          << "</text>";
        lx += 30 + 6.2 * double(se.name.size());
    }
}

void writeAxes(std::ostringstream& s, const Frame& f, const PlotOptions& o) {
    for (double t : f.yticks) {
        const double y = f.Y(t);
        s << "<line x1=\"" << f.left << "\" y1=\"" << f1(y) << "\" x2=\"" << f.left + f.pw
          << "\" y2=\"" << f1(y) << "\" stroke=\"#eee\"/>";
        s << "<text x=\"" << f.left - 6 << "\" y=\"" << f1(y + 3.5)
          << "\" text-anchor=\"end\" class=\"ptick\">" << tickLabel(t, o.logY) << "</text>";
    }
    for (double t : niceTicks(f.xmin, f.xmax, 8)) {
        const double x = f.X(t);
        s << "<line x1=\"" << f1(x) << "\" y1=\"" << f.top + f.ph << "\" x2=\"" << f1(x)
          << "\" y2=\"" << f.top + f.ph + 4 << "\" stroke=\"#888\"/>";
        s << "<text x=\"" << f1(x) << "\" y=\"" << f.top + f.ph + 16
          << "\" text-anchor=\"middle\" class=\"ptick\">" << html::num(t) << "</text>";
    }
    if (!o.xLabel.empty())
        s << "<text x=\"" << f.left + f.pw / 2 << "\" y=\"" << f.H - 6
          << "\" text-anchor=\"middle\" class=\"paxis\">" << esc(o.xLabel) << "</text>";
    if (!o.yLabel.empty())
        s << "<text transform=\"translate(12 " << f.top + f.ph / 2
          << ") rotate(-90)\" text-anchor=\"middle\" class=\"paxis\">" << esc(o.yLabel)
          << "</text>";
}

void writeReferenceLines(std::ostringstream& s, const Frame& f, const PlotOptions& o) {
    for (const auto& l : o.lines) {
        if (!f.shown(l.y)) continue;
        const double y = f.Y(l.y);
        s << "<line x1=\"" << f.left << "\" y1=\"" << f1(y) << "\" x2=\"" << f.left + f.pw
          << "\" y2=\"" << f1(y) << "\" stroke=\"" << l.color
          << "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>";
        s << "<text x=\"" << f.left + 6 << "\" y=\"" << f1(y + 13) << "\" class=\"pref\" fill=\""
          << l.color << "\">" << esc(l.label) << "</text>";
    }
}

// One polyline per run of shown points; a point shown alone becomes a dot.
void writeSeries(std::ostringstream& s, const Frame& f, const Series& se) {
    std::string pts;
    auto flush = [&] {
        if (pts.empty()) return;
        s << "<polyline fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\" "
             "stroke=\""
          << se.color << "\" stroke-width=\"2\"" << (se.dashed ? " stroke-dasharray=\"5 3\"" : "")
          << " points=\"" << pts << "\"/>";
        pts.clear();
    };
    const size_t n = std::min(se.x.size(), se.y.size());
    size_t run = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!f.shown(se.y[i])) {
            if (run == 1) pts += " " + pts.substr(0, pts.find(' '));
            flush();
            run = 0;
            continue;
        }
        if (!pts.empty()) pts += ' ';
        pts += f1(f.X(se.x[i])) + "," + f1(f.Y(se.y[i]));
        ++run;
    }
    if (run == 1) pts += " " + pts;
    flush();
}

void writeMarks(std::ostringstream& s, const Frame& f, const PlotOptions& o) {
    for (const auto& m : o.marks) {
        const double x = f.X(m.x);
        s << "<g><title>" << esc(m.label) << "</title><line x1=\"" << f1(x) << "\" y1=\"" << f.top
          << "\" x2=\"" << f1(x) << "\" y2=\"" << f.top + f.ph << "\" stroke=\"" << m.color
          << "\" stroke-opacity=\"0.35\" stroke-dasharray=\"2 3\"/><path d=\"M" << f1(x - 4) << ' '
          << f.top - 7 << " L" << f1(x + 4) << ' ' << f.top - 7 << " L" << f1(x) << ' ' << f.top - 1
          << " Z\" fill=\"" << m.color << "\"/></g>";
    }
}

}  // namespace

std::string linePlot(const std::vector<Series>& series, const PlotOptions& o) {
    const Frame f = frameFor(series, o);
    std::ostringstream s;
    s << "<svg class=\"plot\" viewBox=\"0 0 " << f.W << ' ' << f.H << "\" width=\"" << f.W
      << "\" height=\"" << f.H << "\" role=\"img\" aria-label=\"" << esc(o.title) << "\">";
    s << "<rect x=\"" << f.left << "\" y=\"" << f.top << "\" width=\"" << f.pw << "\" height=\""
      << f.ph << "\" fill=\"#fff\" stroke=\"#bbb\"/>";
    s << "<text x=\"4\" y=\"16\" class=\"ptitle\">" << esc(o.title) << "</text>";
    writeLegend(s, f, series);
    writeAxes(s, f, o);
    writeReferenceLines(s, f, o);
    for (const auto& se : series) writeSeries(s, f, se);
    writeMarks(s, f, o);
    s << "</svg>";
    return s.str();
}

std::string heatColor(double bits, bool nonFinite) {
    if (nonFinite) return "#ff00ff";
    if (std::isnan(bits)) return "#f4f4f4";
    if (bits < 0) return "#d62728";
    // viridis at 0, .25, .5, .75, 1 (t = 1 at 0 bits, 0 at -16 bits or less)
    static const Rgb stops[] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    const double t = std::clamp(1.0 - bits / 16.0, 0.0, 1.0);
    const double p = t * 4;
    const int i = std::min(3, int(p));
    const double f = p - i;
    const Rgb& a = stops[i];
    const Rgb& b = stops[i + 1];
    return hex({a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f});
}

std::string heatmap(const Heatmap& h) {
    const size_t R = h.rows.size(), C = h.cols.size();
    size_t longest = 4;
    for (const auto& r : h.rows) longest = std::max(longest, std::min<size_t>(r.size(), 60));
    const double labelW = 8 + 6.0 * double(longest);
    const double cw = std::clamp(640.0 / double(std::max<size_t>(C, 1)), 10.0, 28.0);
    const double ch = 12;
    const double top = 44;
    const double W = labelW + cw * double(C) + 10;
    const double H = top + ch * double(R) + 8;
    std::ostringstream s;
    s << "<svg class=\"heat\" viewBox=\"0 0 " << f1(W) << ' ' << f1(H) << "\" width=\"" << f1(W)
      << "\" height=\"" << f1(H) << "\" role=\"img\" aria-label=\"" << esc(h.title) << "\">";
    const size_t every = cw >= 20 ? 1 : cw >= 12 ? 2 : 5;
    // Numbered columns (steps) on the lower row, named ones ("text", "decode") above them, so
    // that a wide name never runs into a step number.
    size_t numbered = 0;
    for (size_t c = 0; c < C; ++c) {
        const bool named =
            h.cols[c].empty() || !std::isdigit(static_cast<unsigned char>(h.cols[c][0]));
        if (!named && numbered++ % every != 0 && c + 1 < C) continue;
        s << "<text x=\"" << f1(labelW + cw * (double(c) + 0.5)) << "\" y=\""
          << (named ? top - 20 : top - 6) << "\" text-anchor=\"middle\" class=\"htick\">"
          << esc(h.cols[c]) << "</text>";
    }
    for (size_t r = 0; r < R; ++r) {
        std::string name = h.rows[r];
        if (name.size() > 60) name = "\u2026" + name.substr(name.size() - 59);
        const double y = top + ch * double(r);
        s << "<text x=\"" << f1(labelW - 6) << "\" y=\"" << f1(y + ch - 3)
          << "\" text-anchor=\"end\" class=\"hrow\">" << esc(name) << "</text>";
        for (size_t c = 0; c < C; ++c) {
            const Cell& cell = h.cells[r * C + c];
            if (!cell.present) continue;
            s << "<rect x=\"" << f1(labelW + cw * double(c)) << "\" y=\"" << f1(y) << "\" width=\""
              << f1(cw - 1) << "\" height=\"" << f1(ch - 1) << "\" fill=\""
              << heatColor(cell.value, cell.nonFinite) << "\"><title>" << esc(cell.tip)
              << "</title></rect>";
        }
    }
    if (h.markRow >= 0 && h.markCol >= 0 && size_t(h.markRow) < R && size_t(h.markCol) < C) {
        const double x = labelW + cw * h.markCol, y = top + ch * h.markRow;
        s << "<rect x=\"" << f1(x - 1.5) << "\" y=\"" << f1(y - 1.5) << "\" width=\"" << f1(cw + 2)
          << "\" height=\"" << f1(ch + 2)
          << "\" fill=\"none\" stroke=\"#000\" stroke-width=\"2.5\"><title>" << esc(h.markTip)
          << "</title></rect>";
        s << "<text x=\"" << f1(x + cw + 4) << "\" y=\"" << f1(y + ch - 2)
          << "\" class=\"hmark\">\u25c0 " << esc(h.markLabel) << "</text>";
    }
    s << "</svg>";
    return s.str();
}

std::string heatmapLegend(const HeatmapLegendText& text) {
    std::ostringstream s;
    const int W = 560;
    s << "<svg class=\"legend\" viewBox=\"0 0 " << W << " 40\" width=\"" << W
      << "\" height=\"40\" role=\"img\" aria-label=\"" << esc(text.name) << "\">";
    for (int i = 0; i <= 32; ++i) {
        const double bits = 16.0 - 0.5 * i;  // headroom: 16 bits below the limit .. 0
        s << "<rect x=\"" << 4 + i * 7 << "\" y=\"4\" width=\"7\" height=\"14\" fill=\""
          << heatColor(bits, false) << "\"/>";
    }
    s << "<text x=\"4\" y=\"32\" class=\"htick\">" << esc(text.below) << "</text>";
    s << "<text x=\"235\" y=\"32\" text-anchor=\"end\" class=\"htick\">65504</text>";
    s << "<rect x=\"262\" y=\"4\" width=\"14\" height=\"14\" fill=\"#d62728\"/><text x=\"280\" "
         "y=\"15\" class=\"htick\">"
      << esc(text.over) << "</text>";
    s << "<rect x=\"360\" y=\"4\" width=\"14\" height=\"14\" fill=\"#ff00ff\"/><text x=\"378\" "
         "y=\"15\" class=\"htick\">NaN/Inf</text>";
    s << "<rect x=\"440\" y=\"4\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"#000\" "
         "stroke-width=\"2.5\"/><text x=\"458\" y=\"15\" class=\"htick\">"
      << esc(text.first) << "</text>";
    s << "</svg>";
    return s.str();
}

}  // namespace hs::svg
