#include "ctl_quiet.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QSignalBlocker>

namespace ctl {

void setIndexQuietly(QComboBox* box, int index) {
    const QSignalBlocker block(box);
    box->setCurrentIndex(index);
}

void setCheckedQuietly(QAbstractButton* button, bool checked) {
    const QSignalBlocker block(button);
    button->setChecked(checked);
}

}  // namespace ctl
