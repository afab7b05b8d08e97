#pragma once
// Shows a widget that may be behind a tab, in a tabbed dock or below a scroll area's fold.

class QWidget;

namespace ctl {

// The tab page that holds `w` to the front, the dock that holds it shown and raised, then the
// scroll areas around it scrolled to it (as much of it as fits, from its top).
void bringIntoView(QWidget* w);

}  // namespace ctl
