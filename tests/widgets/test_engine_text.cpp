// The engine's sentence templates as the studio translates them: the list lupdate reads
// (widgets/controls/engine_messages.cpp) equals core's catalogue, the zh_CN translation covers
// every template with the same arguments, and a message renders in the installed language.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTranslator>
#include <QXmlStreamReader>

#include "engine_text.h"

namespace {

QSet<QString> placeholders(const QString& text) {
    QSet<QString> s;
    auto it = QRegularExpression("%[1-9]").globalMatch(text);
    while (it.hasNext()) s.insert(it.next().captured());
    return s;
}

bool hasCjk(const QString& s) {
    for (QChar c : s)
        if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF) return true;
    return false;
}

}  // namespace

TEST(EngineText, TheLupdateListEqualsTheEngineCatalogue) {
    const auto& list = engine_text::templateList();
    const auto& catalogue = hs::messageCatalogue();
    ASSERT_EQ(list.size(), catalogue.size());
    for (size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(std::string(list[i].first), std::string(catalogue[i].id)) << i;
        EXPECT_EQ(std::string(list[i].second), std::string(catalogue[i].text)) << list[i].first;
    }
}

TEST(EngineText, EnglishWithoutATranslator) {
    const hs::MessageText m{{"image.black", {"0.004", "0.01"}}};
    EXPECT_EQ(engine_text::text(m, "stored english"), "mean level 0.004, brightest 0.01");
    EXPECT_EQ(engine_text::text({}, "stored english"), "stored english");
    EXPECT_EQ(engine_text::text(hs::Message{"verdict.black", {}}), "black");
    EXPECT_EQ(engine_text::languageTag(), "en");
}

TEST(EngineText, ChineseTranslationCoversEveryTemplateWithItsArguments) {
    QTranslator zh;
    ASSERT_TRUE(zh.load("halfscope_zh_CN", HALFSCOPE_QM_DIR)) << HALFSCOPE_QM_DIR;
    QCoreApplication::installTranslator(&zh);
    for (const auto& [id, source] : engine_text::templateList()) {
        const QString t = QCoreApplication::translate("Engine", source);
        EXPECT_NE(t, QString::fromUtf8(source)) << id << " is not translated";
        EXPECT_EQ(placeholders(t), placeholders(QString::fromUtf8(source)))
            << id << ": " << t.toStdString();
    }
    // Arguments land where the translation puts them.
    const hs::MessageText m{
        {"first_failure.probe_step.emulated",
         {"+Inf", "transformer.blocks.1.ff", "transformer.blocks.1", "0", "fp16"}}};
    const QString s = engine_text::text(m, "english");
    EXPECT_TRUE(hasCjk(s)) << s.toStdString();
    EXPECT_TRUE(s.contains("transformer.blocks.1.ff")) << s.toStdString();
    EXPECT_TRUE(s.contains("+Inf")) << s.toStdString();
    EXPECT_NE(engine_text::languageTag(), "en");
    QCoreApplication::removeTranslator(&zh);
    EXPECT_EQ(engine_text::text(m, "english").toStdString(),
              "+Inf first at transformer.blocks.1.ff (block transformer.blocks.1, step 0, fp16 "
              "emulated)");
}

// Every message of the studio's zh_CN translation (not only the engine's) is finished, non-empty
// and keeps its source's %1..%9: a string added to the UI without its translation fails here.
TEST(ZhTranslation, EveryMessageIsFinishedWithTheSourcesArguments) {
    QFile f(HALFSCOPE_TEST_DATA "/../../translations/halfscope_zh_CN.ts");
    ASSERT_TRUE(f.open(QIODevice::ReadOnly)) << f.fileName().toStdString();
    QXmlStreamReader xml(&f);
    QString context, source;
    int messages = 0;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement) continue;
        if (xml.name() == u"name") {
            context = xml.readElementText();
        } else if (xml.name() == u"source") {
            source = xml.readElementText();
        } else if (xml.name() == u"translation") {
            ++messages;
            const QString type = xml.attributes().value("type").toString();
            const QString t = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            const std::string where = (context + ": " + source).toStdString();
            EXPECT_TRUE(type.isEmpty()) << where << " is " << type.toStdString();
            EXPECT_FALSE(t.trimmed().isEmpty()) << where;
            EXPECT_EQ(placeholders(t), placeholders(source)) << where << " -> " << t.toStdString();
        }
    }
    ASSERT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    EXPECT_GT(messages, 600);
}
