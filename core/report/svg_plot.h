#pragma once
// Inline SVG charts of the HTML report, generated here (no script, no external library): a line
// plot with linear or log y axis, reference lines and markers, and a heatmap. Internal.
#include <limits>
#include <string>
#include <vector>

namespace hs::svg {

struct Series {
    std::string name;
    std::string color;
    std::vector<double> x, y;  // non-finite y (and y <= 0 on a log axis) leave a gap
    bool dashed = false;
};

struct RefLine {  // horizontal
    double y;
    std::string label;
    std::string color;
};

struct Mark {  // a triangle above the plot area at x, e.g. a step holding NaN
    double x;
    std::string color;
    std::string label;
};

struct PlotOptions {
    int width = 560;
    int height = 250;
    bool logY = false;
    std::string title;
    std::string xLabel;
    std::string yLabel;
    std::vector<RefLine> lines;
    std::vector<Mark> marks;
};

std::string linePlot(const std::vector<Series>& series, const PlotOptions& o);

struct Cell {
    bool present = false;
    bool nonFinite = false;
    double value = std::numeric_limits<double>::quiet_NaN();  // headroom in bits (see color)
    std::string tip;
};

struct Heatmap {
    std::string title;
    std::vector<std::string> rows;
    std::vector<std::string> cols;
    std::vector<Cell> cells;                         // [rows][cols]
    int markRow = -1, markCol = -1;                  // the first non-finite value: outlined
    std::string markTip = "first non-finite value";  // the outline's tooltip
    std::string markLabel = "first NaN/Inf";         // the text beside it
};

// The legend's fixed words, in the report's language (English by default; "NaN/Inf" and "65504"
// read the same in every language).
struct HeatmapLegendText {
    std::string name = "heatmap legend";        // its accessible name
    std::string below = "\u226416 bits below";  // the ramp's far end
    std::string over = "over 65504";
    std::string first = "first NaN/Inf";
};

// Colour of a cell from its headroom in bits to 65504: a viridis ramp from -16 bits (or less)
// to 0, red past 65504, magenta for NaN/Inf (as in the previews).
std::string heatColor(double bits, bool nonFinite);
std::string heatmap(const Heatmap& h);
// The legend of heatmap(): colour ramp with its meaning.
std::string heatmapLegend(const HeatmapLegendText& text = {});

}  // namespace hs::svg
