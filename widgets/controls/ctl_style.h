#pragma once
// Small shared looks of the control panels: secondary text that stays readable on light and
// dark palettes (a blend of the text and window colours, not a fixed grey), a hook for what is
// painted once from the palette (a legend pixmap) to be painted again when it changes, and notes
// and error messages that take no room while they have nothing to say.
#include <functional>

class QColor;
class QLabel;
class QPalette;
class QString;
class QWidget;

namespace ctl {

// Between the palette's window text and window colours (about 65% text): secondary text.
QColor subtleColor(const QPalette& palette);
// Text of `w` in subtleColor() of the palette it inherits, again whenever that changes.
void setSubtle(QWidget* w);
// Calls `repaint` whenever `w`'s palette changes (the app switched between light and dark);
// the hook lives as long as `w`.
void onPaletteChange(QWidget* w, std::function<void()> repaint);
// Sets `label`'s text and shows it; hides it when `text` is empty.
void setShownText(QLabel* label, const QString& text);
// `label`'s text while it is shown, else empty.
QString shownText(const QLabel* label);
// A wrapped message in the error colour, hidden until it has something to say (setShownText, or
// show()).
QLabel* errorLabel(const char* objectName, QWidget* parent);

}  // namespace ctl
