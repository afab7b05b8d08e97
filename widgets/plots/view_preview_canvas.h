#pragma once
// The painted row of thumbnails inside PreviewStrip's scroll area: one slot per step, each
// holding the latent projection and/or the full VAE decode of that step. Scaled thumbnails are
// cached per slot, so a repaint only blits pixmaps.
#include <QImage>
#include <QPixmap>
#include <QWidget>
#include <vector>

#include "records/run_types.h"
#include "view_format.h"

class ViewPreviewCanvas : public QWidget {
    Q_OBJECT
public:
    struct Slot {
        QImage projection;  // latent -> RGB projection, source resolution
        QImage full;        // full VAE decode (kept at most kMaxSource px on its long side)
        QSize projectionSize, fullSize;  // the sizes the engine sent
        QString projectionOrigin;        // where its latent-to-RGB map came from (PreviewImage)
        ViewNonFinitePixels projectionBad, fullBad;
        QPixmap cache;  // the shown image scaled to the thumbnail box
        bool showsFull() const { return !full.isNull(); }
        bool empty() const { return projection.isNull() && full.isNull(); }
    };
    static constexpr int kMaxSource = 256;

    explicit ViewPreviewCanvas(QWidget* parent = nullptr);

    void setStepCount(int steps);
    int stepCount() const { return int(m_slots.size()); }
    void setThumbnailSize(int px);
    int thumbnailSize() const { return m_thumb; }
    bool setPreview(const hs::PreviewImage& p);
    void clear();
    void setSelectedStep(int step);
    int selectedStep() const { return m_selected; }

    const Slot* slotAt(int step) const;
    // Whole slot of `step` and the box its thumbnail is drawn in (canvas coordinates).
    QRect slotRect(int step) const;
    QRect thumbnailRect(int step) const;
    int stepAt(const QPoint& pos) const;  // -1 outside any slot

    QSize sizeHint() const override;

signals:
    void stepClicked(int step);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    void updateCache(Slot& s);
    void relayout();
    int headerHeight() const;

    std::vector<Slot> m_slots;
    int m_thumb = 96;
    int m_selected = -1;
    static constexpr int kPad = 4;
};
