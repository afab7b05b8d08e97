#include "ctl_wheel_guard.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QWheelEvent>
#include <QWidget>

namespace ctl {

namespace {

bool isGuarded(const QObject* o) {
    return qobject_cast<const QAbstractSpinBox*>(o) || qobject_cast<const QComboBox*>(o);
}

// Offers the wheel to the widgets around `from`, innermost first, as Qt does with a wheel event
// a widget ignores; true once one takes it. Done here, not left to Qt: Qt passes an event on only
// when it came from the window system, and a sent one (tests, synthesized input) would stop here.
bool passOn(QWidget* from, const QWheelEvent& e) {
    const QPointF global = e.globalPosition();
    for (QWidget* p = from->parentWidget(); p; p = p->parentWidget()) {
        QWheelEvent copy(p->mapFromGlobal(global), global, e.pixelDelta(), e.angleDelta(),
                         e.buttons(), e.modifiers(), e.phase(), e.inverted(), e.source(),
                         e.pointingDevice());
        QCoreApplication::sendEvent(p, &copy);
        if (copy.isAccepted()) return true;
        if (p->isWindow()) break;
    }
    return false;
}

}  // namespace

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (!isGuarded(watched)) return false;
    auto* w = static_cast<QWidget*>(watched);
    if (event->type() == QEvent::Polish && w->focusPolicy() == Qt::WheelFocus) {
        w->setFocusPolicy(Qt::StrongFocus);  // a passing wheel must not focus it either
    } else if (event->type() == QEvent::Wheel && !w->hasFocus()) {
        event->setAccepted(passOn(w, *static_cast<QWheelEvent*>(event)));
        return true;  // the box itself never sees it
    }
    return false;
}

void guardWheel(QCoreApplication* app) {
    if (!app || app->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly)) return;
    app->installEventFilter(new WheelGuard(app));
    // Those polished already keep the wheel focus that Qt gives before any filter runs.
    for (QWidget* w : QApplication::allWidgets())
        if (isGuarded(w) && w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
}

}  // namespace ctl
