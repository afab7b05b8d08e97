#pragma once
// Small shared looks of the control panels: secondary text that stays readable on light and
// dark palettes (a blend of the text and window colours, not a fixed grey), and a hook for
// what is painted once from the palette (a legend pixmap) to be painted again when it changes.
#include <functional>

class QColor;
class QPalette;
class QWidget;

namespace ctl {

// Between the palette's window text and window colours (about 65% text): secondary text.
QColor subtleColor(const QPalette& palette);
// Text of `w` in subtleColor() of the palette it inherits, again whenever that changes.
void setSubtle(QWidget* w);
// Calls `repaint` whenever `w`'s palette changes (the app switched between light and dark);
// the hook lives as long as `w`.
void onPaletteChange(QWidget* w, std::function<void()> repaint);

}  // namespace ctl
