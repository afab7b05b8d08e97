#include "ctl_style.h"

#include <QColor>
#include <QPalette>
#include <QWidget>

namespace ctl {

void setSubtle(QWidget* w) {
    QPalette p = w->palette();
    const QColor text = p.color(QPalette::WindowText);
    const QColor back = p.color(QPalette::Window);
    const auto mix = [](int a, int b) { return (a * 65 + b * 35) / 100; };
    const QColor c(mix(text.red(), back.red()), mix(text.green(), back.green()),
                   mix(text.blue(), back.blue()));
    p.setColor(QPalette::WindowText, c);
    p.setColor(QPalette::Text, c);
    w->setPalette(p);
}

}  // namespace ctl
