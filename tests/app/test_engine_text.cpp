// The engine's sentences in a Chinese studio, end to end and offscreen: the embedded demo model
// run with an fp16 transformer fails; with the zh_CN translation installed the verdict's
// explanation, the first-failure line in the log and the exported HTML report are Chinese and
// name the layer; without it they are the engine's English.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>

#include "fix_panel.h"
#include "image_view.h"
#include "log_panel.h"
#include "main_window.h"
#include "precision_panel.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

bool hasCjk(const QString& s) {
    for (QChar c : s)
        if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF) return true;
    return false;
}

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// What the studio showed and wrote for one failing fp16 run of the demo model.
struct Seen {
    QString explanation;  // the image view's verdict explanation
    QString failureLine;  // the log line naming where the first NaN/Inf appeared
    QString point;        // that point, from the exported JSON (English, language-neutral)
    QString html;         // the exported HTML report
};

class EngineTextStudio : public StudioFixture {
protected:
    Seen runFailingFp16(const QString& name) {
        Seen seen;
        const auto window = openStudio(QString(), nullptr, "history-" + name);
        MainWindow& w = *window;
        setDemoRun(w, 4);
        w.views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
        w.studio().generate();
        EXPECT_TRUE(QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 120000));
        seen.explanation = w.views().image->explanation();
        QString error;
        const QString html = m_dir.filePath(name + ".html");
        EXPECT_TRUE(w.studio().exportReport(html, &error)) << error.toStdString();
        seen.html = readText(html);
        const auto json =
            QJsonDocument::fromJson(readText(m_dir.filePath(name + ".json")).toUtf8());
        seen.point = json.object()["runs"]
                         .toArray()
                         .at(0)
                         .toObject()["findings"]
                         .toObject()["first_failure"]
                         .toObject()["point"]
                         .toString();
        for (const QString& line : w.views().log->toPlainText().split('\n'))
            if (!seen.point.isEmpty() && line.contains(seen.point)) seen.failureLine = line;
        return seen;
    }
};

}  // namespace

TEST_F(EngineTextStudio, AChineseStudioShowsAndExportsTheEngineSentencesInChinese) {
    QTranslator zh;
    ASSERT_TRUE(zh.load("halfscope_zh_CN", HALFSCOPE_QM_DIR)) << HALFSCOPE_QM_DIR;
    QCoreApplication::installTranslator(&zh);
    const QLocale before;
    QLocale::setDefault(QLocale(QLocale::Chinese, QLocale::China));
    const Seen zhSeen = runFailingFp16("zh");
    QCoreApplication::removeTranslator(&zh);
    QLocale::setDefault(before);

    // What was seen, in the test's XML output (--gtest_output=xml).
    RecordProperty("zh_explanation", zhSeen.explanation.toStdString());
    RecordProperty("zh_failure_line", zhSeen.failureLine.toStdString());
    ASSERT_FALSE(zhSeen.point.isEmpty()) << "the fp16 run did not fail";
    EXPECT_TRUE(zhSeen.point.startsWith("transformer")) << zhSeen.point.toStdString();
    EXPECT_TRUE(hasCjk(zhSeen.explanation)) << zhSeen.explanation.toStdString();
    ASSERT_FALSE(zhSeen.failureLine.isEmpty());
    EXPECT_TRUE(hasCjk(zhSeen.failureLine)) << zhSeen.failureLine.toStdString();
    EXPECT_FALSE(zhSeen.failureLine.contains("first at")) << zhSeen.failureLine.toStdString();
    // The report: its language, a translated heading, the first failure and the advice.
    EXPECT_TRUE(zhSeen.html.contains("<html lang=\"zh")) << zhSeen.html.left(200).toStdString();
    EXPECT_FALSE(zhSeen.html.contains("<h2>Summary</h2>"));
    EXPECT_FALSE(zhSeen.html.contains(" first at "));
    EXPECT_FALSE(zhSeen.html.contains("running in fp16"));
    const qsizetype at = zhSeen.html.indexOf(zhSeen.point);
    ASSERT_GE(at, 0);
    int cjk = 0;
    for (QChar c : zhSeen.html)
        if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF) ++cjk;
    EXPECT_GT(cjk, 100);

    // The same run without the translation: the engine's English.
    const Seen en = runFailingFp16("en");
    RecordProperty("en_explanation", en.explanation.toStdString());
    RecordProperty("en_failure_line", en.failureLine.toStdString());
    EXPECT_EQ(en.point, zhSeen.point);
    EXPECT_FALSE(hasCjk(en.explanation)) << en.explanation.toStdString();
    EXPECT_TRUE(en.failureLine.contains(" first at " + en.point)) << en.failureLine.toStdString();
    EXPECT_FALSE(hasCjk(en.failureLine));
    EXPECT_TRUE(en.html.contains("<html lang=\"en\">"));
    EXPECT_TRUE(en.html.contains("<h2>Summary</h2>"));
    EXPECT_TRUE(en.html.contains("First non-finite value:"));
    EXPECT_FALSE(hasCjk(en.html.mid(en.html.indexOf("<main>"))));
}

TEST_F(EngineTextStudio, AChineseStudioShowsTheRemedyTableInChinese) {
    QTranslator zh;
    ASSERT_TRUE(zh.load("halfscope_zh_CN", HALFSCOPE_QM_DIR)) << HALFSCOPE_QM_DIR;
    QCoreApplication::installTranslator(&zh);
    const auto window = openStudio(QString(), nullptr, "history-fix");
    MainWindow& w = *window;
    ASSERT_TRUE(w.studio().model().has_value());
    w.views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
    FixSettings s;
    s.trialSteps = 3;
    s.remedies = {hs::RemedyKind::Clamp};
    w.studio().findMinimalFix(s);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 300000));
    QCoreApplication::removeTranslator(&zh);
    auto* fix = w.views().fix;
    ASSERT_GT(fix->remedyCount(), 0) << fix->resultText().toStdString();
    auto* table = fix->remedyTable();
    const QString action = table->item(0, 2)->text();
    const QString cost = table->item(0, table->columnCount() - 1)->text();
    RecordProperty("zh_remedy_action", action.toStdString());
    RecordProperty("zh_remedy_cost", cost.toStdString());
    RecordProperty("zh_remedy_message", fix->resultText().toStdString());
    EXPECT_TRUE(hasCjk(action)) << action.toStdString();
    EXPECT_TRUE(action.contains("transformer")) << action.toStdString();
    EXPECT_TRUE(hasCjk(cost)) << cost.toStdString();
    EXPECT_TRUE(hasCjk(fix->resultText())) << fix->resultText().toStdString();
}
