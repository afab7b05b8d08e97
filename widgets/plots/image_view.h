#pragma once
// The final image of a run, enlarged with nearest neighbour (aspect kept), under a verdict badge:
// OK (green), black (charcoal), flat (amber), contains NaN/Inf (magenta), error (red), cancelled
// (grey), with the numbers behind it: mean level and std of the image as saved (non-finite
// pixels count as 0, which is what a saved PNG holds), and the non-finite pixels and values.
// Before any run it shows an empty state. The scaled pixmap is cached per size.
#include <QImage>
#include <QPixmap>
#include <QStringList>
#include <QWidget>

#include "records/run_types.h"
#include "view_format.h"

class ImageView : public QWidget {
    Q_OBJECT
public:
    enum class Verdict { None, Ok, Black, Flat, NonFinite, Error, Cancelled, Unknown };

    explicit ImageView(QWidget* parent = nullptr);

    // `image`: the final image as the engine paints it (NaN magenta, Inf cyan, mask in
    // nonFinite); `verdict`: RunRecord::verdict ("ok", "nan/inf", "black", "flat");
    // `explanation`: RunRecord::verdictExplanation; `imageStats`: RunRecord::image (count 0 when
    // unknown). A malformed image (rgb size != w*h*3) shows the verdict without a picture.
    void setResult(const hs::PreviewImage& image, const QString& verdict,
                   const QString& explanation, const hs::TensorStats& imageStats = {});
    // The same from a finished record; also shows errors and cancelled runs.
    void setRun(const hs::RunRecord& run);
    // A picture without a verdict (e.g. Compare's difference image) and a caption line under
    // the title; non-finite pixels are taken from the mask as for setResult().
    void setPicture(const hs::PreviewImage& image, const QString& caption);
    QString caption() const { return m_caption; }
    // A line above the badge, e.g. the run label and its precision plan.
    void setTitle(const QString& title);
    QString title() const { return m_title; }
    void setPlaceholder(const QString& text);
    void clear();  // back to the empty state (keeps the title)

    Verdict verdict() const { return m_verdict; }
    bool hasImage() const { return !m_image.isNull(); }
    QString badgeText() const;
    QColor badgeColor() const;
    QString numbersText() const { return m_numbers; }
    QString explanation() const { return m_explanation; }
    double meanLevel() const { return m_mean; }
    double stdLevel() const { return m_std; }
    // Where the image is drawn, in widget coordinates (empty without an image).
    QRect imageRect() const;
    // The painted texts (title, levels) with a piece too wide for the view's width: a title
    // wraps at spaces and after commas, the levels move under the badge when they do not fit
    // beside it, so this is empty unless one word is wider than the whole view.
    QStringList elidedTexts() const;

    static Verdict parseVerdict(const QString& verdict);

    QSize sizeHint() const override { return QSize(320, 360); }
    QSize minimumSizeHint() const override { return QSize(160, 180); }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    QRect headerRect() const;
    int headerHeight() const;
    bool levelsBesideBadge() const;
    void computeNumbers(const hs::PreviewImage& image, const hs::TensorStats& stats);
    void refreshCache();

    QString m_title;
    QString m_caption;  // setPicture() only
    QString m_placeholder;
    QImage m_image;
    QPixmap m_cache;
    bool m_hasNonFinite = false;
    Verdict m_verdict = Verdict::None;
    QString m_verdictName;
    QString m_explanation;
    QString m_numbers;    // m_levels and m_nonFinite together
    QString m_levels;     // mean level and std
    QString m_nonFinite;  // pixels and values
    double m_mean = 0, m_std = 0;
};
