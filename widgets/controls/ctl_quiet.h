#pragma once
// A control set from code to match a value the view already holds (setTensor, setFilter ...):
// its change signal stays silent, so the view does not react to its own update.
class QAbstractButton;
class QComboBox;

namespace ctl {

void setIndexQuietly(QComboBox* box, int index);
void setCheckedQuietly(QAbstractButton* button, bool checked);

}  // namespace ctl
