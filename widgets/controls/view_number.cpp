#include "view_number.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

QString viewNumber(double v, int precision) {
    if (std::isnan(v)) return QStringLiteral("NaN");
    if (std::isinf(v)) return v > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    const double a = std::fabs(v);
    if (a != 0 && (a >= 1e6 || a < 1e-3))
        return QString::number(v, 'e', std::max(precision - 2, 1));
    if (a == std::floor(a) && a < 1e6) return QString::number(qint64(v));
    return QString::number(v, 'g', precision);
}

QString viewCount(qint64 n) {
    return QLocale().toString(n);
}
