#pragma once
// Number text of the run views: Qt Core only, so the views' data classes (step_plot_data) use
// it without pulling in colours or images.
#include <QString>

// Compact number text: "65504", "0.0123", "3.39e+38", "NaN", "+Inf", "-Inf".
QString viewNumber(double v, int precision = 4);
// Integer with thousands grouping of the current locale.
QString viewCount(qint64 n);
