#include "image_view.h"

#include <QPaintEvent>
#include <QPainter>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

#include "ctl_style.h"
#include "engine_text.h"

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
    m_placeholder = tr("No image yet. Start a run to see its final image and verdict here.");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

ImageView::Verdict ImageView::parseVerdict(const QString& v) {
    const QString t = v.trimmed().toLower();
    if (t.isEmpty()) return Verdict::None;
    if (t == "ok") return Verdict::Ok;
    if (t == "black") return Verdict::Black;
    if (t == "flat") return Verdict::Flat;
    if (t == "nan/inf" || t == "nan" || t == "inf" || t == "nonfinite") return Verdict::NonFinite;
    if (t == "error") return Verdict::Error;
    if (t == "cancelled") return Verdict::Cancelled;
    return Verdict::Unknown;
}

void ImageView::setResult(const hs::PreviewImage& image, const QString& verdict,
                          const QString& explanation, const hs::TensorStats& imageStats) {
    m_verdictName = verdict;
    m_verdict = parseVerdict(verdict);
    m_explanation = explanation;
    m_image = viewImageOf(image);
    m_hasNonFinite = viewCountNonFinite(image).total() > 0;
    computeNumbers(image, imageStats);
    refreshCache();
    setToolTip(m_explanation);
    update();
}

void ImageView::setPicture(const hs::PreviewImage& image, const QString& caption) {
    clear();
    m_caption = caption;
    m_image = viewImageOf(image);
    m_hasNonFinite = viewCountNonFinite(image).total() > 0;
    refreshCache();
    setToolTip(caption);
    update();
}

void ImageView::setRun(const hs::RunRecord& run) {
    if (!run.error.empty()) {
        clear();
        m_verdict = Verdict::Error;
        m_verdictName = "error";
        m_explanation = QString::fromStdString(run.error);
        setToolTip(m_explanation);
        update();
        return;
    }
    if (run.cancelled && !run.finalImage) {
        clear();
        m_verdict = Verdict::Cancelled;
        m_verdictName = "cancelled";
        m_explanation = tr("The run was cancelled before the image was decoded.");
        update();
        return;
    }
    if (!run.finalImage) {
        clear();
        return;
    }
    // The explanation in the studio's language (English for runs stored without the message).
    setResult(*run.finalImage, QString::fromStdString(run.verdict),
              engine_text::text(run.verdictMessage, run.verdictExplanation), run.image);
}

void ImageView::setTitle(const QString& title) {
    m_title = title;
    refreshCache();
    update();
}

void ImageView::setPlaceholder(const QString& text) {
    m_placeholder = text;
    update();
}

void ImageView::clear() {
    m_image = QImage();
    m_cache = QPixmap();
    m_caption.clear();
    m_hasNonFinite = false;
    m_verdict = Verdict::None;
    m_verdictName.clear();
    m_explanation.clear();
    m_numbers.clear();
    m_levels.clear();
    m_nonFinite.clear();
    m_mean = m_std = 0;
    setToolTip(QString());
    update();
}

void ImageView::computeNumbers(const hs::PreviewImage& image, const hs::TensorStats& stats) {
    // Levels of the image as saved: 8-bit values in [0, 1], a non-finite pixel saved as 0.
    double sum = 0, sq = 0;
    qint64 n = 0;
    const size_t pixels = size_t(image.width) * size_t(image.height);
    const bool valid = image.width > 0 && image.rgb.size() == pixels * 3;
    if (valid) {
        for (size_t i = 0; i < pixels; ++i) {
            const bool bad = i < image.nonFinite.size() && image.nonFinite[i] != 0;
            for (int c = 0; c < 3; ++c) {
                const double v = bad ? 0.0 : image.rgb[i * 3 + c] / 255.0;
                sum += v;
                sq += v * v;
                ++n;
            }
        }
    }
    m_mean = n ? sum / n : 0;
    m_std = n > 1 ? std::sqrt(std::max(0.0, (sq - sum * sum / n) / (n - 1))) : 0;
    const ViewNonFinitePixels bad = viewCountNonFinite(image);
    QStringList parts;
    if (n) {
        parts << tr("mean level %1").arg(m_mean, 0, 'f', 3);
        parts << tr("std %1").arg(m_std, 0, 'f', 3);
    }
    m_levels = parts.join(QStringLiteral("  \u00B7  "));
    m_nonFinite = tr("non-finite pixels %1").arg(viewCount(bad.total()));
    if (stats.count > 0)
        m_nonFinite +=
            " " + tr("(%1 of %2 values)").arg(viewCount(stats.nonFinite()), viewCount(stats.count));
    m_numbers =
        m_levels.isEmpty() ? m_nonFinite : m_levels + QStringLiteral("  \u00B7  ") + m_nonFinite;
}

namespace {

// Each verdict's badge: its words (translated in ImageView's context) and its colour.
struct VerdictBadge {
    ImageView::Verdict verdict;
    const char* text;
    QColor color;
};
const VerdictBadge kVerdictBadges[] = {
    {ImageView::Verdict::Ok, QT_TRANSLATE_NOOP("ImageView", "OK"), QColor(0, 135, 68)},
    {ImageView::Verdict::Black, QT_TRANSLATE_NOOP("ImageView", "BLACK IMAGE"), QColor(28, 28, 28)},
    {ImageView::Verdict::Flat, QT_TRANSLATE_NOOP("ImageView", "FLAT IMAGE"), QColor(205, 140, 0)},
    {ImageView::Verdict::NonFinite, QT_TRANSLATE_NOOP("ImageView", "CONTAINS NaN/Inf"),
     QColor(200, 0, 170)},
    {ImageView::Verdict::Error, QT_TRANSLATE_NOOP("ImageView", "ERROR"), QColor(200, 0, 0)},
    {ImageView::Verdict::Cancelled, QT_TRANSLATE_NOOP("ImageView", "CANCELLED"),
     QColor(120, 120, 120)},
};

const VerdictBadge* badgeOf(ImageView::Verdict v) {
    for (const auto& b : kVerdictBadges)
        if (b.verdict == v) return &b;
    return nullptr;  // None (no badge) and Unknown (the engine's own name)
}

}  // namespace

QString ImageView::badgeText() const {
    if (m_verdict == Verdict::Unknown) return m_verdictName.toUpper();
    const VerdictBadge* b = badgeOf(m_verdict);
    return b ? tr(b->text) : QString();
}

QColor ImageView::badgeColor() const {
    const VerdictBadge* b = badgeOf(m_verdict);
    return b ? b->color : QColor(90, 90, 90);
}

namespace {

// Height of `text` wrapped at `width` (at least one line): the verdict's numbers and its
// explanation are sentences that a narrow column would otherwise cut off.
int wrappedHeight(const QFont& font, const QString& text, int width) {
    const QFontMetrics fm(font);
    const int h = fm.boundingRect(QRect(0, 0, std::max(1, width), 100000),
                                  Qt::TextWordWrap | Qt::AlignLeft, text)
                      .height();
    return std::max(fm.height(), h) + 6;
}

QFont boldOf(QFont f) {
    f.setBold(true);
    return f;
}

// A title with a break opportunity (zero-width space) after each comma: a plan such as
// "text_encoder=bf16,transformer=fp16,vae=fp16" has no spaces to wrap at.
QString breakable(const QString& title) {
    QString t = title;
    t.replace(',', QStringLiteral(",\u200B"));
    return t;
}

// The widest piece of `text` that wrapping cannot split (between spaces and break points).
int widestPiece(const QFont& font, const QString& text) {
    const QFontMetrics fm(font);
    int w = 0;
    for (const QString& piece :
         text.split(QRegularExpression(QStringLiteral("[\\s\u200B]+")), Qt::SkipEmptyParts))
        w = std::max(w, fm.horizontalAdvance(piece));
    return w;
}

}  // namespace

int ImageView::headerHeight() const {
    const int line = fontMetrics().height() + 6;
    int h = 0;
    if (!m_title.isEmpty()) h += wrappedHeight(boldOf(font()), breakable(m_title), width() - 8);
    if (m_verdict != Verdict::None) {  // badge + levels, non-finite, explanation
        h += line;
        if (!levelsBesideBadge()) h += wrappedHeight(font(), m_levels, width() - 8);
        h += wrappedHeight(m_hasNonFinite ? boldOf(font()) : font(), m_nonFinite, width() - 8);
        h += wrappedHeight(font(), m_explanation, width() - 8);
    } else if (!m_caption.isEmpty()) {
        h += wrappedHeight(font(), m_caption, width() - 8);
    }
    return h ? h + 4 : 0;
}

bool ImageView::levelsBesideBadge() const {
    const int badge = QFontMetrics(boldOf(font())).horizontalAdvance(badgeText()) + 16;
    return fontMetrics().horizontalAdvance(m_levels) <= width() - badge - 16;
}

QStringList ImageView::elidedTexts() const {
    QStringList out;
    if (!m_title.isEmpty() && widestPiece(boldOf(font()), breakable(m_title)) > width() - 8)
        out << m_title;
    if (m_verdict != Verdict::None && widestPiece(font(), m_levels) > width() - 8) out << m_levels;
    return out;
}

QRect ImageView::headerRect() const {
    return QRect(0, 0, width(), headerHeight());
}

QRect ImageView::imageRect() const {
    if (m_cache.isNull()) return QRect();
    const QRect area = rect().adjusted(4, headerHeight() + 2, -4, -4);
    // Centred across, at the top: the picture sits right under its badge.
    QRect r(QPoint(0, 0), m_cache.size());
    r.moveCenter(area.center());
    r.moveTop(area.top());
    return r;
}

void ImageView::refreshCache() {
    const QRect area = rect().adjusted(4, headerHeight() + 2, -4, -4);
    if (m_image.isNull() || area.width() < 4 || area.height() < 4) {
        m_cache = QPixmap();
        return;
    }
    m_cache = QPixmap::fromImage(viewScaled(m_image, area.size(), m_hasNonFinite));
}

void ImageView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    refreshCache();
}

void ImageView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette& pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height() + 6;
    int y = 2;
    if (!m_title.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(pal.color(QPalette::WindowText));
        const QString title = breakable(m_title);
        const int th = wrappedHeight(bold, title, width() - 8);
        p.drawText(QRect(4, y, width() - 8, th),
                   Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, title);
        y += th;
    }
    if (m_verdict != Verdict::None) {
        QFont bold = font();
        bold.setBold(true);
        const QString badge = badgeText();
        const int bw = QFontMetrics(bold).horizontalAdvance(badge) + 16;
        const QRect badgeRect(4, y + 1, bw, line - 2);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(Qt::NoPen);
        p.setBrush(badgeColor());
        p.drawRoundedRect(badgeRect, 4, 4);
        p.setRenderHint(QPainter::Antialiasing, false);
        p.setFont(bold);
        p.setPen(m_verdict == Verdict::Flat ? Qt::black : Qt::white);
        p.drawText(badgeRect, Qt::AlignCenter, badge);
        p.setFont(font());
        p.setPen(pal.color(QPalette::WindowText));
        y += line;
        if (levelsBesideBadge()) {
            const QRect levels(badgeRect.right() + 8, badgeRect.top() - 1,
                               width() - badgeRect.right() - 12, line);
            p.drawText(levels, Qt::AlignLeft | Qt::AlignVCenter, m_levels);
        } else {  // a narrow view: under the badge, wrapped
            const int lh = wrappedHeight(font(), m_levels, width() - 8);
            p.drawText(QRect(4, y, width() - 8, lh),
                       Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, m_levels);
            y += lh;
        }
        if (m_hasNonFinite) {
            p.setFont(bold);
            p.setPen(badgeColor());
        }
        const int nh = wrappedHeight(p.font(), m_nonFinite, width() - 8);
        p.drawText(QRect(4, y + 3, width() - 8, nh), Qt::AlignLeft | Qt::TextWordWrap, m_nonFinite);
        p.setFont(font());
        y += nh;
        p.setPen(ctl::subtleColor(pal));  // readable on light and dark palettes
        p.drawText(QRect(4, y + 3, width() - 8, wrappedHeight(font(), m_explanation, width() - 8)),
                   Qt::AlignLeft | Qt::TextWordWrap, m_explanation);
    }
    if (m_verdict == Verdict::None && !m_caption.isEmpty()) {
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(4, y + 3, width() - 8, wrappedHeight(font(), m_caption, width() - 8)),
                   Qt::AlignLeft | Qt::TextWordWrap, m_caption);
    }
    if (!m_cache.isNull()) {
        p.drawPixmap(imageRect().topLeft(), m_cache);
        return;
    }
    // Empty state (or a verdict without a picture): a dashed frame with a hint.
    const QRect area = rect().adjusted(4, headerHeight() + 2, -5, -5);
    p.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(area);
    p.setPen(pal.color(QPalette::Disabled, QPalette::WindowText).darker(150));
    const QString text =
        m_verdict == Verdict::None && m_caption.isEmpty() ? m_placeholder : tr("No image");
    p.drawText(area.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, text);
}
