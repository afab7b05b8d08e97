#pragma once
// Input that does not change by accident: a spin box or a combo box takes the mouse wheel only
// while it has the keyboard focus (clicked or tabbed into). Unfocused, the wheel goes on to the
// widgets around it, so a scroll area (the Setup panel) scrolls instead of Steps going 20 -> 1
// as a spin box passes under the pointer. The wheel no longer gives these boxes the focus.
#include <QObject>

class QCoreApplication;

namespace ctl {

class WheelGuard : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

// Guards every spin box and combo box of the application, those made later included (one
// application-wide filter, installed once; later calls do nothing).
void guardWheel(QCoreApplication* app);

}  // namespace ctl
