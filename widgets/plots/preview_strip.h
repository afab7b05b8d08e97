#pragma once
// One thumbnail per sampling step of the denoised estimate x0 (hs::PreviewImage). A latent
// projection (fullDecode false, low resolution) is enlarged with nearest neighbour; a full VAE
// decode (fullDecode true) takes the place of the projection for its step and carries a "VAE"
// tag. NaN pixels arrive magenta and Inf cyan; the legend says so, and a badge counts them, so a
// NaN preview is never read as a dark picture. Clicking a thumbnail emits stepClicked(step) (the
// app then decodes that step fully). Horizontally scrollable; strips with the same step count
// and thumbnail size line up step by step (Compare).
#include <QWidget>

#include "records/run_types.h"

class QLabel;
class QScrollArea;
class QScrollBar;
class ViewPreviewCanvas;

class PreviewStrip : public QWidget {
    Q_OBJECT
public:
    explicit PreviewStrip(QWidget* parent = nullptr);

    // Slots for steps 0 .. steps-1 (a preview of a later step adds slots).
    void setStepCount(int steps);
    int stepCount() const;
    // Side of the square box each thumbnail is fitted in (16 .. 512 px, default 96).
    void setThumbnailSize(int px);
    int thumbnailSize() const;

    // Stores a preview in the slot of its step. A full decode replaces the projection shown for
    // that step; a later projection does not hide a full decode. Returns false (and stores
    // nothing) for the final image (step < 0) and for malformed images (rgb size != w*h*3).
    bool addPreview(const hs::PreviewImage& preview);
    void clear();  // keeps the step count

    // Frames a step (e.g. the one being decoded); -1 for none.
    void setSelectedStep(int step);
    int selectedStep() const;
    // Scroll to the newest preview as it arrives (default on; off while the user looks back).
    void setFollowLatest(bool on) { m_follow = on; }
    void setLegendVisible(bool visible);
    // Hides the horizontal scroll bar (it still scrolls: Compare moves hidden ones in step with
    // the one strip that shows its bar).
    void setScrollBarVisible(bool visible);

    bool hasPreview(int step) const;
    bool showsFullDecode(int step) const;
    QRect thumbnailRect(int step) const;  // in canvas() coordinates
    QWidget* canvas() const;
    QScrollBar* horizontalScrollBar() const;
    // The legend's text (plain), for tests and accessibility.
    QString legendText() const;
    // The legend as rich text (Compare shows one legend above several strips).
    static QString legendHtml();

signals:
    void stepClicked(int step);

private:
    ViewPreviewCanvas* m_canvas;
    QScrollArea* m_scroll;
    QLabel* m_legend;
    void fitHeight();

    bool m_follow = true;
    bool m_scrollBarVisible = true;
};
