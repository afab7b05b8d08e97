#pragma once
// The table behind LayerHeatmap: probe points (rows, in first-appearance order) x columns
// (text encoding, sampling steps 0..N-1, VAE decode), each cell the statistics of one point in
// one step. Plain data, no painting, so it can be tested and filled fast.
//
// Step -1 records are split into the text-encoding column and the VAE-decode column by the role
// of the component the point belongs to (setComponents): text encoders and adapters to the
// first, the VAE to the last; a point of any other component before the first sampling step is
// text encoding and one after it is the decode.
#include <QColor>
#include <QHash>
#include <QString>
#include <vector>

#include "records/probe_types.h"
#include "records/run_types.h"

class ViewHeatmapData {
public:
    struct Cell {
        hs::TensorStats stats;
        hs::Format format = hs::Format::FP32;
        hs::Execution execution = hs::Execution::Native;
        int calls = 0;  // records merged into this cell (a point called twice in one step)
        bool empty() const { return calls == 0; }
    };
    struct Row {
        QString name;
        hs::ProbeLevel granularity = hs::ProbeLevel::Module;
        Cell text, decode;
        std::vector<Cell> steps;
    };
    enum class Column { Text, Step, Decode };

    // Op-granularity records are skipped (they are the engine's finest level and would swamp the
    // table); Module and Layer records make rows.
    void add(const std::vector<hs::ProbeRecord>& records);
    // The run's components, whose roles place step -1 records (kept across clear()).
    void setComponents(const std::vector<hs::ComponentInfo>& components);
    void setStepCount(int steps);
    void clear();

    int rowCount() const { return int(m_rows.size()); }
    const Row& row(int i) const { return m_rows[size_t(i)]; }
    int rowOf(const QString& name) const { return m_index.value(name, -1); }
    // Step columns shown: the step count set, or more when later steps arrived.
    int stepColumns() const { return m_stepColumns; }
    // Columns: 0 = text encoding, 1 .. stepColumns() = steps, last = VAE decode.
    int columnCount() const { return m_stepColumns + 2; }
    Column kindOf(int column) const;
    int stepOf(int column) const;  // the sampling step, -1 for the text and decode columns
    int columnOfStep(int step) const { return step + 1; }
    int decodeColumn() const { return m_stepColumns + 1; }
    const Cell* cell(int row, int column) const;
    // Which column a step -1 record of `name` lands in when nothing else tells.
    int columnForUnsteppedName(const QString& name) const;
    bool samplingStarted() const { return m_samplingStarted; }
    // Total records taken (Op records not counted).
    qint64 recordCount() const { return m_records; }

private:
    Cell* cellFor(Row& r, int step, const QString& name);

    std::vector<Row> m_rows;
    std::vector<hs::ComponentInfo> m_components;
    QHash<QString, int> m_index;
    int m_stepColumns = 0;
    bool m_samplingStarted = false;
    qint64 m_records = 0;
};

// log2(|max| / 65504): 0 at fp16's limit, -10 for 1000x headroom; -inf for an all-zero tensor,
// NaN when there is no finite value.
double viewHeadroomLog2(const hs::TensorStats& s);
// The heatmap colour of a cell: blue (lots of headroom) through yellow to red (at the limit),
// dark red past it; NaN magenta, Inf (no NaN) cyan, both as in the previews; empty light grey.
QColor viewHeadroomColor(const ViewHeatmapData::Cell* c);
// The colour of a headroom value alone (the legend's gradient), log2 clamped to [-24, 0].
QColor viewHeadroomGradient(double log2Headroom);
constexpr double kViewHeadroomFloor = -24;  // 2^-24 of 65504 is ~0.004: plenty of headroom
