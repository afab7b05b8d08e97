#include "view_heatmap_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "records/format_types.h"
#include "view_format.h"

void ViewHeatmapData::add(const std::vector<hs::ProbeRecord>& records) {
    for (const hs::ProbeRecord& rec : records) {
        if (rec.granularity == hs::ProbeLevel::Op || rec.granularity == hs::ProbeLevel::Off)
            continue;
        const QString name = QString::fromStdString(rec.name);
        int ri = m_index.value(name, -1);
        if (ri < 0) {
            ri = int(m_rows.size());
            m_rows.emplace_back();
            m_rows.back().name = name;
            m_rows.back().granularity = rec.granularity;
            m_rows.back().steps.resize(size_t(m_stepColumns));
            m_index.insert(name, ri);
        }
        if (rec.step >= 0) {
            m_samplingStarted = true;
            if (rec.step >= m_stepColumns) setStepCount(rec.step + 1);
        }
        Cell* c = cellFor(m_rows[size_t(ri)], rec.step, name);
        c->stats = c->calls == 0 ? rec.stats : viewMergeStats(c->stats, rec.stats);
        c->format = rec.format;
        c->execution = rec.execution;
        ++c->calls;
        ++m_records;
    }
}

ViewHeatmapData::Cell* ViewHeatmapData::cellFor(Row& r, int step, const QString& name) {
    if (step >= 0) return &r.steps[size_t(step)];
    return columnForUnsteppedName(name) == 0 ? &r.text : &r.decode;
}

void ViewHeatmapData::setComponents(const std::vector<hs::ComponentInfo>& components) {
    m_components = components;
}

int ViewHeatmapData::columnForUnsteppedName(const QString& name) const {
    const std::string component = name.section('.', 0, 0).toStdString();
    switch (hs::roleOf(m_components, component)) {
        case hs::Role::TextEncoder:
        case hs::Role::TextEncoder2:
        case hs::Role::Adapter:
            return 0;
        case hs::Role::Vae:
            return decodeColumn();
        default:
            return m_samplingStarted ? decodeColumn() : 0;
    }
}

void ViewHeatmapData::setStepCount(int steps) {
    steps = std::max(steps, 0);
    // Never drop recorded steps: a smaller count only applies once the table is cleared.
    for (const Row& r : m_rows)
        for (int s = int(r.steps.size()) - 1; s >= steps; --s)
            if (!r.steps[size_t(s)].empty()) steps = s + 1;
    m_stepColumns = steps;
    for (Row& r : m_rows) r.steps.resize(size_t(steps));
}

void ViewHeatmapData::clear() {
    m_rows.clear();
    m_index.clear();
    m_samplingStarted = false;
    m_records = 0;
}

ViewHeatmapData::Column ViewHeatmapData::kindOf(int column) const {
    if (column <= 0) return Column::Text;
    if (column >= decodeColumn()) return Column::Decode;
    return Column::Step;
}

int ViewHeatmapData::stepOf(int column) const {
    return kindOf(column) == Column::Step ? column - 1 : -1;
}

const ViewHeatmapData::Cell* ViewHeatmapData::cell(int row, int column) const {
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return nullptr;
    const Row& r = m_rows[size_t(row)];
    switch (kindOf(column)) {
        case Column::Text:
            return &r.text;
        case Column::Decode:
            return &r.decode;
        case Column::Step:
            return &r.steps[size_t(column - 1)];
    }
    return nullptr;
}

double viewHeadroomLog2(const hs::TensorStats& s) {
    if (s.finite == 0 || !std::isfinite(s.absMax)) return std::numeric_limits<double>::quiet_NaN();
    if (s.absMax <= 0) return -std::numeric_limits<double>::infinity();
    return std::log2(s.absMax / hs::kFp16Max);
}

QColor viewHeadroomGradient(double v) {
    // A diverging blue-yellow-red ramp (ColorBrewer RdYlBu, reversed) over [-24, 0].
    struct Stop {
        double t;
        QColor c;
    };
    static const Stop stops[] = {{0.00, QColor(49, 54, 149)},   {0.30, QColor(69, 117, 180)},
                                 {0.50, QColor(145, 191, 219)}, {0.65, QColor(224, 243, 248)},
                                 {0.75, QColor(254, 224, 144)}, {0.85, QColor(253, 174, 97)},
                                 {0.93, QColor(244, 109, 67)},  {1.00, QColor(215, 48, 39)}};
    if (std::isnan(v)) v = kViewHeadroomFloor;
    const double t = std::clamp((v - kViewHeadroomFloor) / -kViewHeadroomFloor, 0.0, 1.0);
    for (size_t i = 1; i < sizeof(stops) / sizeof(stops[0]); ++i) {
        if (t <= stops[i].t) {
            const double f = (t - stops[i - 1].t) / (stops[i].t - stops[i - 1].t);
            const QColor& a = stops[i - 1].c;
            const QColor& b = stops[i].c;
            return QColor(int(a.red() + f * (b.red() - a.red())),
                          int(a.green() + f * (b.green() - a.green())),
                          int(a.blue() + f * (b.blue() - a.blue())));
        }
    }
    return stops[7].c;
}

QColor viewHeadroomColor(const ViewHeatmapData::Cell* c) {
    if (!c || c->empty()) return QColor(232, 232, 232);
    if (c->stats.nan > 0) return viewNanColor();
    if (c->stats.posInf + c->stats.negInf > 0) return viewInfColor();
    const double v = viewHeadroomLog2(c->stats);
    if (v > 0) return QColor(110, 0, 20);  // finite but past 65504: Inf if this ran in fp16
    return viewHeadroomGradient(v);
}
