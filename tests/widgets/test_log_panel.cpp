// LogPanel: bounded, levels shown distinctly, filter, copy all.
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QPlainTextEdit>
#include <QTextBlock>

#include "log_panel.h"

namespace {

QDateTime at(int sec) {
    return QDateTime(QDate(2024, 5, 1), QTime(12, 0, 0).addSecs(sec));
}

// Pixels in the log's viewport that are clearly red (error lines).
int redPixels(LogPanel& log) {
    QApplication::processEvents();
    const QImage img = log.view()->viewport()->grab().toImage();
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            if (c.red() > 150 && c.green() < 80 && c.blue() < 80) ++n;
        }
    return n;
}

}  // namespace

TEST(LogPanel, KeepsOnlyTheLastLines) {
    LogPanel log;
    log.setMaximumLines(100);
    for (int i = 0; i < 250; ++i) log.info(QString("event %1").arg(i), "step");
    EXPECT_EQ(log.lineCount(), 100);
    EXPECT_EQ(log.entries().front().text, "event 150");
    EXPECT_EQ(log.view()->document()->blockCount(), 100);
    EXPECT_EQ(log.count(LogPanel::Level::Info), 250) << "counts include dropped lines";
}

TEST(LogPanel, DefaultBoundIs5000) {
    LogPanel log;
    EXPECT_EQ(log.maximumLines(), 5000);
    for (int i = 0; i < 5100; ++i) log.info(QString("step %1").arg(i));
    EXPECT_EQ(log.lineCount(), 5000);
    EXPECT_EQ(log.view()->document()->blockCount(), 5000);
    EXPECT_TRUE(log.entries().back().text == "step 5099");
}

TEST(LogPanel, LevelsAreShownDistinctly) {
    LogPanel log;
    log.resize(700, 300);
    log.show();
    log.append(LogPanel::Level::Info, "loaded demo model", "load", at(0));
    log.append(LogPanel::Level::Info, "step 3: |max| 812", "step", at(1));
    EXPECT_EQ(redPixels(log), 0);
    log.append(LogPanel::Level::Warning, "step 11: 37 values past 65504", "step", at(2));
    log.append(LogPanel::Level::Error, "first NaN at transformer.single_transformer_blocks.30.ff",
               "nan", at(3));
    EXPECT_GT(redPixels(log), 20) << "the error line is red";
    const QTextDocument* doc = log.view()->document();
    ASSERT_EQ(doc->blockCount(), 4);
    auto formatOf = [&](int block) {
        return doc->findBlockByNumber(block).begin().fragment().charFormat();
    };
    EXPECT_NE(formatOf(2).foreground().color(), formatOf(0).foreground().color());
    EXPECT_EQ(formatOf(3).foreground().color(), QColor(200, 0, 0));
    EXPECT_EQ(formatOf(3).fontWeight(), QFont::Bold);
    EXPECT_TRUE(doc->findBlockByNumber(2).text().contains("WARN"));
    EXPECT_TRUE(doc->findBlockByNumber(3).text().contains("ERROR"));
    EXPECT_TRUE(doc->findBlockByNumber(0).text().startsWith("2024-05-01 12:00:00.000"));
    EXPECT_EQ(log.count(LogPanel::Level::Error), 1);
    EXPECT_EQ(log.count(LogPanel::Level::Warning), 1);
}

TEST(LogPanel, FilterHidesLowerLevelsButCopyAllKeepsThem) {
    LogPanel log;
    log.append(LogPanel::Level::Info, "a", "", at(0));
    log.append(LogPanel::Level::Warning, "b", "", at(1));
    log.append(LogPanel::Level::Error, "c\nsecond line", "run", at(2));
    log.setMinimumLevel(LogPanel::Level::Error);
    EXPECT_EQ(log.view()->document()->blockCount(), 1);
    EXPECT_TRUE(log.view()->document()->firstBlock().text().contains("[run] c"));
    log.copyAll();
    const QString copied = QApplication::clipboard()->text();
    EXPECT_EQ(copied, log.toPlainText());
    EXPECT_EQ(copied.split('\n').size(), 4) << "3 entries, the last with two lines";
    EXPECT_TRUE(copied.contains("INFO   a"));
    EXPECT_TRUE(copied.contains("WARN   b"));
    EXPECT_TRUE(copied.contains("ERROR  [run] c\nsecond line"));
    log.setMinimumLevel(LogPanel::Level::Info);
    EXPECT_EQ(log.view()->document()->blockCount(), 3) << "a multi-line entry stays one block";
    log.clear();
    EXPECT_EQ(log.lineCount(), 0);
    EXPECT_EQ(log.count(LogPanel::Level::Error), 0);
}

TEST(LogPanel, RendersRealisticLog) {
    LogPanel log;
    log.resize(900, 320);
    log.show();
    log.append(
        LogPanel::Level::Info,
        "loaded resources/demo-model (text_encoder fp32, transformer bf16, vae fp32) in 0.8 s",
        "load", at(0));
    log.append(LogPanel::Level::Info, "run 1: plan transformer=fp16, 20 steps, seed 42, 64x64",
               "run", at(1));
    for (int s = 0; s < 11; ++s)
        log.append(LogPanel::Level::Info,
                   QString("step %1: latent |max| %2, 0.21 s").arg(s).arg(3 * (s + 1) * (s + 1)),
                   "step", at(2 + s));
    log.append(LogPanel::Level::Warning,
               "step 11: 37 values of transformer.single_transformer_blocks.29 past 65504", "step",
               at(14));
    log.append(LogPanel::Level::Error,
               "first non-finite: transformer.single_transformer_blocks.30.ff at step 11 (+Inf 40)",
               "nan", at(14));
    log.append(LogPanel::Level::Error,
               "final image: contains NaN/Inf (12288 NaN values); saved as a PNG it is black",
               "verdict", at(20));
    QApplication::processEvents();
    const QString dir = qEnvironmentVariable("HALFSCOPE_VIEW_SHOTS");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        log.grab().toImage().save(dir + "/log_panel.png");
    }
    EXPECT_EQ(log.lineCount(), 16);
}
