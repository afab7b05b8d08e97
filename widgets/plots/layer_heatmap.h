#pragma once
// Per-layer overflow headroom: probe points (rows, first-appearance order; Module and Layer
// granularity) x steps (columns; text encoding and VAE decode, which record at step -1, get their
// own labelled columns), coloured by log2(max|x| / 65504): blue = lots of headroom, yellow =
// within a few bits, red = at the limit, dark red = past it (finite only because the point ran
// in bf16/fp32), magenta = NaN, cyan = Inf (as in the previews), grey = no record. The first
// non-finite point gets a black-and-white frame, a marked row label and a banner. Clicking a
// cell shows that point's statistics and emits cellClicked(probe, step).
//
// Feeding: addProbes() once per step with that step's records (or once with a whole run's),
// setFirstNonFinite() whenever the engine reports it (before or after its records arrive).
#include <QWidget>
#include <optional>

#include "records/probe_types.h"
#include "view_heatmap_data.h"

class QComboBox;
class QLabel;
class QPushButton;
class ViewHeatmapGrid;

class LayerHeatmap : public QWidget {
    Q_OBJECT
public:
    enum class Filter { LayersAndModules, ModulesOnly };

    explicit LayerHeatmap(QWidget* parent = nullptr);

    void addProbes(const std::vector<hs::ProbeRecord>& records);
    // The run's components: their roles place the records outside the sampling loop.
    void setComponents(const std::vector<hs::ComponentInfo>& components) {
        m_data.setComponents(components);
    }
    void setFirstNonFinite(const hs::FirstNonFinite& first);
    // Step columns to show before the steps arrive (keeps the layout still during a run).
    void setStepCount(int steps);
    void clear();

    void setFilter(Filter f);
    Filter filter() const { return m_filter; }

    // Selects a cell as a click would (details shown, cellClicked emitted). Column as in
    // ViewHeatmapData: 0 text encoding, step + 1, last VAE decode. False if there is no such row.
    bool selectCell(const QString& probe, int column);
    // Scrolls to and selects the cell of probe point `probe` at sampling step `step` (-1: its
    // text-encoding or VAE-decode column), as a click would; shows the layers first when the
    // filter hides that row. False when there is no such row or column (yet).
    bool selectLayer(const QString& probe, int step);
    // Scrolls to and selects the first non-finite cell; false when there is none (yet).
    bool showFirstNonFinite();

    // Plain text of the statistics panel and of the first-non-finite banner.
    QString detailsText() const;
    QString firstNonFiniteText() const;

    // Rows as shown (after the filter).
    int rowCount() const;
    QString rowName(int displayRow) const;
    int columnCount() const { return m_data.columnCount(); }
    QColor cellColor(int displayRow, int column);
    // The marked first non-finite cell as (display row, column); (-1, -1) when none is shown.
    QPoint markedCell() const;
    ViewHeatmapGrid* grid() const { return m_grid; }
    const ViewHeatmapData& data() const { return m_data; }

signals:
    // step: the sampling step, or -1 for the text-encoding and VAE-decode columns.
    void cellClicked(const QString& probe, int step);

private:
    void applyFilter();
    void resolveMark();
    void showDetails(int dataRow, int column);
    void onGridClick(int dataRow, int column);

    ViewHeatmapData m_data;
    ViewHeatmapGrid* m_grid;
    QComboBox* m_filterBox;
    QLabel* m_banner;
    QPushButton* m_showFirst;
    QLabel* m_details;
    Filter m_filter = Filter::LayersAndModules;
    std::optional<hs::FirstNonFinite> m_first;
    int m_markRow = -1, m_markColumn = -1;  // data row, column
    int m_selRow = -1, m_selColumn = -1;
    int m_rowsSeen = 0;
};
