#pragma once
// Small shared looks of the control panels: secondary text that stays readable on light and
// dark palettes (a blend of the text and window colours, not a fixed grey).
class QWidget;

namespace ctl {

// Text of `w` drawn between the palette's text and window colours (about 65% text).
void setSubtle(QWidget* w);

}  // namespace ctl
