#pragma once
// Renders a widget to <$HALFSCOPE_SHOTS>/<name>.png for looking at it: the DISABLED_Screenshot
// tests, run with --gtest_also_run_disabled_tests; they skip when the variable is not set.
#include <gtest/gtest.h>

#include <QDir>
#include <QPixmap>
#include <QTest>
#include <QWidget>

#define HALFSCOPE_SHOTS_DIR_OR_SKIP(var)                         \
    const QString var = qEnvironmentVariable("HALFSCOPE_SHOTS"); \
    if (var.isEmpty()) GTEST_SKIP() << "set HALFSCOPE_SHOTS=<folder> to render"

inline void saveShot(QWidget& w, const QString& dir, const QString& name) {
    w.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(50);
    ASSERT_TRUE(QDir().mkpath(dir));
    const QPixmap p = w.grab();
    ASSERT_FALSE(p.isNull());
    ASSERT_TRUE(p.save(dir + "/" + name + ".png"));
}
