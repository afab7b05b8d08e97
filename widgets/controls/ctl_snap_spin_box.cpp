#include "ctl_snap_spin_box.h"

#include <algorithm>

SnapSpinBox::SnapSpinBox(QWidget* parent) : QSpinBox(parent) {
    // valueChanged only when editing finishes (or an arrow is used), so snapping never fights
    // the user's typing of "1" on the way to "128".
    setKeyboardTracking(false);
    connect(this, &QSpinBox::valueChanged, this, [this](int v) {
        const int s = snapped(v);
        if (s != v) setValue(s);
    });
}

void SnapSpinBox::setConstraints(int multiple, int minimum, int maximum) {
    m_multiple = std::max(1, multiple);
    int lo = (std::max(minimum, 1) + m_multiple - 1) / m_multiple * m_multiple;  // round up
    int hi = std::max(maximum, lo) / m_multiple * m_multiple;                    // round down
    if (hi < lo) hi = lo;
    const int keep = value();
    setRange(lo, hi);
    setSingleStep(m_multiple);
    setValue(snapped(keep));
}

int SnapSpinBox::snapped(int v) const {
    const int lo = minimum(), hi = maximum();
    const int m = m_multiple;
    int s = (std::clamp(v, lo, hi) + m / 2) / m * m;
    if (s < lo) s += m;
    if (s > hi) s -= m;
    return std::clamp(s, lo, hi);
}

void SnapSpinBox::fixup(QString& input) const {
    bool ok = false;
    const int v = locale().toInt(input, &ok);
    if (ok)
        input = locale().toString(snapped(v));
    else
        QSpinBox::fixup(input);
}
