#include "view_format.h"

#include <QCoreApplication>
#include <algorithm>
#include <cmath>

QColor viewRunColor(int run) {
    // Okabe-Ito inspired: distinguishable for the common colour-vision deficiencies, and none
    // is magenta or cyan (those mean NaN and Inf).
    static const QColor colors[] = {QColor(0, 114, 178),  QColor(213, 94, 0),
                                    QColor(0, 158, 115),  QColor(204, 121, 167),
                                    QColor(86, 180, 233), QColor(230, 159, 0)};
    const int n = int(sizeof(colors) / sizeof(colors[0]));
    return colors[((run % n) + n) % n];
}

QString viewSwatchHtml(const QColor& c) {
    return QStringLiteral("<span style='background-color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>")
        .arg(c.name());
}

QString viewColorSquareHtml(const QColor& c) {
    return QStringLiteral("<span style='color:%1'>&#9632;</span>").arg(c.name());
}

QString viewRunTitleHtml(const QColor& c, const QString& label) {
    return viewColorSquareHtml(c) + QStringLiteral(" <b>") + label.toHtmlEscaped() +
           QStringLiteral("</b>");
}

QImage viewImageOf(const hs::PreviewImage& p) {
    if (p.width <= 0 || p.height <= 0 || p.rgb.size() != size_t(p.width) * p.height * 3)
        return QImage();
    QImage img(p.width, p.height, QImage::Format_RGB888);
    for (int y = 0; y < p.height; ++y)
        std::copy_n(p.rgb.data() + size_t(y) * p.width * 3, size_t(p.width) * 3, img.scanLine(y));
    return img;
}

ViewNonFinitePixels viewCountNonFinite(const hs::PreviewImage& p) {
    ViewNonFinitePixels c;
    for (uint8_t m : p.nonFinite) {
        if (m == 1)
            ++c.nan;
        else if (m == 2)
            ++c.inf;
    }
    return c;
}

QImage viewScaled(const QImage& img, const QSize& box, bool hasNonFinite) {
    if (img.isNull() || box.isEmpty()) return QImage();
    const QSize target = img.size().scaled(box, Qt::KeepAspectRatio);
    const bool enlarge = target.width() >= img.width();
    const Qt::TransformationMode mode =
        (enlarge || hasNonFinite) ? Qt::FastTransformation : Qt::SmoothTransformation;
    return img.scaled(target, Qt::IgnoreAspectRatio, mode);
}

hs::TensorStats viewMergeStats(const hs::TensorStats& a, const hs::TensorStats& b) {
    if (a.count == 0) return b;
    if (b.count == 0) return a;
    hs::TensorStats r;
    r.count = a.count + b.count;
    r.finite = a.finite + b.finite;
    r.nan = a.nan + b.nan;
    r.posInf = a.posInf + b.posInf;
    r.negInf = a.negInf + b.negInf;
    r.overFp16 = a.overFp16 + b.overFp16;
    r.subnormalFp16 = a.subnormalFp16 + b.subnormalFp16;
    if (a.finite == 0) {
        r.min = b.min, r.max = b.max, r.absMax = b.absMax, r.mean = b.mean, r.std = b.std;
        return r;
    }
    if (b.finite == 0) {
        r.min = a.min, r.max = a.max, r.absMax = a.absMax, r.mean = a.mean, r.std = a.std;
        return r;
    }
    r.min = std::min(a.min, b.min);
    r.max = std::max(a.max, b.max);
    r.absMax = std::max(a.absMax, b.absMax);
    const double na = double(a.finite), nb = double(b.finite), n = na + nb;
    r.mean = (na * a.mean + nb * b.mean) / n;
    // Unbiased std of each part back to sums of squared deviations, pooled, then unbiased again.
    auto ss = [](double s, double k) {
        return (k > 1 && std::isfinite(s)) ? s * s * (k - 1) : 0.0;
    };
    const double total = ss(a.std, na) + ss(b.std, nb) +
                         na * (a.mean - r.mean) * (a.mean - r.mean) +
                         nb * (b.mean - r.mean) * (b.mean - r.mean);
    r.std = n > 1 ? std::sqrt(total / (n - 1)) : 0.0;
    return r;
}

QString viewExecutionName(hs::Execution e) {
    return e == hs::Execution::Native ? QCoreApplication::translate("ViewFormat", "native")
                                      : QCoreApplication::translate("ViewFormat", "emulated");
}

QString viewProbeLevelName(hs::ProbeLevel l) {
    switch (l) {
        case hs::ProbeLevel::Off:
            return QCoreApplication::translate("ViewFormat", "off");
        case hs::ProbeLevel::Module:
            return QCoreApplication::translate("ViewFormat", "module");
        case hs::ProbeLevel::Layer:
            return QCoreApplication::translate("ViewFormat", "layer");
        case hs::ProbeLevel::Op:
            return QCoreApplication::translate("ViewFormat", "op");
    }
    return QString::fromStdString(hs::probeLevelName(l));
}
