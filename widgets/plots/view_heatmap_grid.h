#pragma once
// The scrolling grid of LayerHeatmap. Row labels (left) and the column header (top) stay put
// while the cells scroll. The cells are one cached QImage with a pixel per cell, drawn scaled
// with nearest neighbour, so a repaint of 300 x 50 cells is a few blits whatever the size.
#include <QAbstractScrollArea>
#include <QImage>
#include <vector>

#include "view_heatmap_data.h"

class QPainter;

class ViewHeatmapGrid : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit ViewHeatmapGrid(const ViewHeatmapData* data, QWidget* parent = nullptr);

    // Data row indices in display order (the level filter).
    void setVisibleRows(std::vector<int> rows);
    const std::vector<int>& visibleRows() const { return m_rows; }
    int displayRowOf(int dataRow) const;
    // Call after the data changed: the cell image is rebuilt at the next paint.
    void dataChanged();
    void setMarked(int dataRow, int column);    // the first non-finite cell; -1 for none
    void setSelected(int dataRow, int column);  // the clicked cell; -1 for none

    // Rows a shown grid never has less room for: a selected row is seen with its neighbours.
    static constexpr int kMinRowsShown = 8;
    // The header, kMinRowsShown rows and the horizontal scroll bar, in height.
    QSize minimumSizeHint() const override;

    int cellSize() const { return m_cell; }
    int labelWidth() const { return m_labelWidth; }
    int headerHeight() const;
    // Cell geometry in viewport coordinates (it moves with the scroll bars).
    QRect cellRect(int displayRow, int column) const;
    bool cellAt(const QPoint& viewportPos, int* dataRow, int* column) const;
    void scrollToCell(int displayRow, int column);
    // The cached cell image (one pixel per cell, display rows x columns), rebuilt if stale.
    const QImage& cellImage();
    int paintCount() const { return m_paints; }

signals:
    void cellClicked(int dataRow, int column);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    // What one paint needs of the geometry: viewport size, header height, label column width,
    // scroll offsets, and the first and last visible display rows (r1 < r0: none).
    struct PaintArea {
        int vw = 0, vh = 0;
        int hh = 0, lw = 0;
        int sx = 0, sy = 0;
        int r0 = 0, r1 = -1;
    };
    PaintArea paintArea() const;
    void paintCells(QPainter& p, const PaintArea& a);
    // The selection and first non-finite frames around a cell.
    void paintCellFrame(QPainter& p, int dataRow, int column, const QColor& outer,
                        const QColor& inner);
    void paintHeader(QPainter& p, const PaintArea& a);
    void paintRowLabels(QPainter& p, const PaintArea& a);
    void paintCorner(QPainter& p, const PaintArea& a);

    int columnX(int column) const;  // content x of a column's left edge
    int columnWidth(int column) const;
    int contentWidth() const;
    int columnAtContentX(int x) const;
    void updateScrollBars();
    void rebuildImage();
    QString cellToolTip(int dataRow, int column) const;

    const ViewHeatmapData* m_data;
    std::vector<int> m_rows;
    std::vector<int> m_displayOf;  // data row -> display row, -1 when filtered out
    QImage m_image;
    bool m_imageDirty = true;
    int m_cell = 14;   // row height and the narrowest step column
    int m_stepW = 14;  // width of a step column
    int m_labelWidth = 160;
    int m_markRow = -1, m_markColumn = -1;
    int m_selRow = -1, m_selColumn = -1;
    int m_paints = 0;
    static constexpr int kGap = 6;  // between the text / steps / decode groups
};
