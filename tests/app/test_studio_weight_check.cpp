// The studio's log shows the fp16 check from weights when a model is loaded.
#include <gtest/gtest.h>

#include <QPlainTextEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "log_panel.h"
#include "main_window.h"
#include "runtime/demo_location.h"
#include "studio.h"

TEST(StudioWeightCheck, LoadingTheDemoLogsItsPerComponentVerdicts) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.filePath("settings"));
    ASSERT_FALSE(hs::findDemoModel().empty());
    MainWindow w(dir.filePath("history"), QString::fromStdString(hs::findDemoModel()));
    w.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return w.studio().model().has_value(); }, 60000));
    const QString log = w.views().log->toPlainText();
    EXPECT_TRUE(log.contains("fp16 check from weights (")) << log.toStdString();
    EXPECT_TRUE(log.contains("text_encoder fp16 safe")) << log.toStdString();
    EXPECT_TRUE(log.contains("transformer at risk")) << log.toStdString();
}
