// ctl::WheelGuard: a spin box or combo box under the pointer takes the wheel only while it has
// the focus; otherwise the scroll area around it scrolls.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTest>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "ctl_wheel_guard.h"

namespace {

// One notch of the wheel away from the user (scrolls up, counts up), over the middle of `w`.
bool wheelOver(QWidget* w, int notches = -1) {
    const QPointF local(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(local, w->mapToGlobal(local), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                  Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
    return e.isAccepted();
}

// A panel taller than its scroll area, with a spin box and a combo box in the middle.
struct Panel {
    QScrollArea area;
    QSpinBox* spin = new QSpinBox;
    QComboBox* combo = new QComboBox;
    QLineEdit* other = new QLineEdit;
    Panel() {
        auto* content = new QWidget;
        auto* layout = new QVBoxLayout(content);
        layout->addSpacing(300);
        layout->addWidget(spin);
        layout->addWidget(combo);
        layout->addWidget(other);
        layout->addSpacing(600);
        spin->setRange(1, 100);
        spin->setValue(20);
        combo->addItems({"one", "two", "three"});
        combo->setCurrentIndex(1);
        area.setWidget(content);
        area.setWidgetResizable(true);
        area.resize(300, 400);
        area.show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(&area));
        area.verticalScrollBar()->setValue(200);
    }
};

}  // namespace

TEST(WheelGuard, AnUnfocusedBoxLetsThePanelScroll) {
    ctl::guardWheel(QCoreApplication::instance());
    Panel p;
    p.other->setFocus();
    QApplication::processEvents();
    for (int i = 0; i < 3; ++i) {
        const int scrolled = p.area.verticalScrollBar()->value();
        EXPECT_TRUE(wheelOver(p.spin, 1)) << "the scroll area took it";
        EXPECT_LT(p.area.verticalScrollBar()->value(), scrolled) << "the panel scrolled up";
    }
    EXPECT_EQ(p.spin->value(), 20) << "Steps unchanged";
    const int scrolled = p.area.verticalScrollBar()->value();
    wheelOver(p.combo, -1);
    EXPECT_EQ(p.combo->currentIndex(), 1);
    EXPECT_GT(p.area.verticalScrollBar()->value(), scrolled) << "the panel scrolled down";
    EXPECT_FALSE(p.spin->hasFocus());
    EXPECT_FALSE(p.combo->hasFocus());
}

TEST(WheelGuard, AFocusedBoxTakesTheWheel) {
    ctl::guardWheel(QCoreApplication::instance());
    Panel p;
    p.spin->setFocus();
    QApplication::processEvents();
    ASSERT_TRUE(p.spin->hasFocus());
    const int scrolled = p.area.verticalScrollBar()->value();
    wheelOver(p.spin, 1);
    EXPECT_EQ(p.spin->value(), 21);
    EXPECT_EQ(p.area.verticalScrollBar()->value(), scrolled) << "the panel stays";
    p.combo->setFocus();
    QApplication::processEvents();
    wheelOver(p.combo, -1);
    EXPECT_EQ(p.combo->currentIndex(), 2);
}

TEST(WheelGuard, TheWheelNoLongerFocusesABox) {
    QSpinBox before;  // polished before the guard is installed
    before.show();
    ctl::guardWheel(QCoreApplication::instance());
    ctl::guardWheel(QCoreApplication::instance());  // once is enough; twice changes nothing
    Panel p;
    EXPECT_EQ(before.focusPolicy(), Qt::StrongFocus);
    EXPECT_EQ(p.spin->focusPolicy(), Qt::StrongFocus);
    EXPECT_EQ(p.combo->focusPolicy(), Qt::StrongFocus);
    EXPECT_EQ(QCoreApplication::instance()->findChildren<ctl::WheelGuard*>().size(), 1);
}
