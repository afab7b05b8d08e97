#include "ctl_bring_into_view.h"

#include <QDockWidget>
#include <QScrollArea>
#include <QTabWidget>
#include <QWidget>

namespace ctl {

void bringIntoView(QWidget* w) {
    for (QWidget *child = w, *p = w->parentWidget(); p; child = p, p = p->parentWidget()) {
        // A tab page's parent is the tab widget's internal stack, whose parent is the tab widget.
        if (auto* tabs = qobject_cast<QTabWidget*>(p->parentWidget()))
            if (tabs->indexOf(child) >= 0) tabs->setCurrentWidget(child);
        if (auto* dock = qobject_cast<QDockWidget*>(p)) {
            dock->show();
            dock->raise();
        }
    }
    // Once its page is current (and laid out).
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(p)) area->ensureWidgetVisible(w, 0, 0);
}

}  // namespace ctl
