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
#include "studio_test_fixture.h"

class StudioWeightCheck : public StudioFixture {};

TEST_F(StudioWeightCheck, LoadingTheDemoLogsItsPerComponentVerdicts) {
    const auto w = openStudio();
    ASSERT_TRUE(w->studio().model().has_value());
    const QString log = w->views().log->toPlainText();
    EXPECT_TRUE(log.contains("fp16 check from weights (")) << log.toStdString();
    EXPECT_TRUE(log.contains("text_encoder fp16 safe")) << log.toStdString();
    EXPECT_TRUE(log.contains("transformer at risk")) << log.toStdString();
}
