// Chinese that renders: the studio in zh_CN on a system whose fontconfig sees no CJK font.
// The real main window is built with the studio's compiled translation, and the text of its menus,
// tabs, docks and buttons is laid out with each widget's own font: every glyph must be a real one
// (glyph 0 is .notdef, drawn as a box), drawn from the bundled font for the CJK characters. Without
// the bundled font the same text must hit glyph 0, which shows the check can fail.
//
// fontconfig reads its configuration once, when Qt first asks for a font, so the font set is
// chosen in main() before QApplication exists: only DejaVu (a Latin font), or, with
// HALFSCOPE_TEST_FONT_SET=latin+cjk, DejaVu and WenQuanYi as installed system fonts.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGlyphRun>
#include <QMenuBar>
#include <QRawFont>
#include <QSaveFile>
#include <QSettings>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextLayout>
#include <QTranslator>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "main_window.h"
#include "studio.h"
#include "ui_fonts.h"

namespace {

const char* const kLatinDir = "/usr/share/fonts/truetype/dejavu";
const char* const kCjkDir = "/usr/share/fonts/truetype/wqy";
const QString kBundledFamily = QStringLiteral("WenQuanYi Micro Hei");

QTemporaryDir* g_dir = nullptr;
QString g_setupError;  // set by main(); every test fails with it
bool g_systemCjk = false;

// One text of the studio and the font its widget draws it with.
struct ShownText {
    QString where;
    QString text;
    QFont font;
};

// What QTextLayout made of a text: glyph runs with their glyph indexes and fonts.
struct Layout {
    int zeroGlyphs = 0;
    int glyphs = 0;
    QStringList cjkRunFamilies;    // the font family of each CJK character
    QStringList otherRunFamilies;  // the font family of each other visible character
};

// QRawFont names a family as the font file spells it, in lower case here.
bool isBundled(const QString& family) {
    return family.compare(kBundledFamily, Qt::CaseInsensitive) == 0;
}

bool isCjk(const QString& s) {
    return cjk::containsCjk(s);
}

Layout layOut(const QString& text, const QFont& font) {
    QTextLayout layout(text, font);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    }
    layout.endLayout();
    Layout out;
    for (const QGlyphRun& run : layout.glyphRuns())
        for (const quint32 g : run.glyphIndexes()) {
            ++out.glyphs;
            if (g == 0) ++out.zeroGlyphs;
        }
    // The font of each character: the runs of its own string range.
    for (int i = 0; i < text.size(); ++i) {
        const int n = text.at(i).isHighSurrogate() && i + 1 < text.size() ? 2 : 1;
        const QString c = text.mid(i, n);
        if (!c.trimmed().isEmpty())
            for (const QGlyphRun& run : layout.glyphRuns(i, n))
                (isCjk(c) ? out.cjkRunFamilies : out.otherRunFamilies)
                    << run.rawFont().familyName();
        i += n - 1;
    }
    return out;
}

// The menus, central tabs, docks and labelled buttons of the window, with their widgets' fonts.
std::vector<ShownText> shownTexts(MainWindow& w) {
    std::vector<ShownText> out;
    for (QAction* a : w.menuBar()->actions())
        out.push_back({"menu", QString(a->text()).remove('&'), w.menuBar()->font()});
    QTabWidget* tabs = w.centralTabs();
    for (int i = 0; i < tabs->count(); ++i)
        out.push_back({"tab", tabs->tabText(i).remove('&'), tabs->tabBar()->font()});
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        out.push_back({"dock " + d->objectName(), d->windowTitle(), d->font()});
    int buttons = 0;
    for (QAbstractButton* b : w.findChildren<QAbstractButton*>()) {
        const QString t = QString(b->text()).remove('&');
        if (!isCjk(t) || buttons >= 12) continue;
        out.push_back({"button", t, b->font()});
        ++buttons;
    }
    return out;
}

class CjkGlyphs : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(g_setupError.isEmpty()) << g_setupError.toStdString();
        // Qt caches each family's fallback fonts per script; an earlier test of this process may
        // have laid out Chinese without the bundled font. Removing an application font clears
        // those caches (adding one does not), so a throwaway one is added and removed.
        const int id = QFontDatabase::addApplicationFont(QString(kLatinDir) + "/DejaVuSerif.ttf");
        ASSERT_GE(id, 0);
        ASSERT_TRUE(QFontDatabase::removeApplicationFont(id));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, g_dir->filePath("settings"));
        m_translator = std::make_unique<QTranslator>();
        ASSERT_TRUE(m_translator->load("halfscope_zh_CN", HALFSCOPE_QM_DIR))
            << "no halfscope_zh_CN.qm in " << HALFSCOPE_QM_DIR;
        QCoreApplication::installTranslator(m_translator.get());
    }
    void TearDown() override {
        if (m_translator) QCoreApplication::removeTranslator(m_translator.get());
    }

    // The real window, after its model (the embedded demo) has loaded.
    std::unique_ptr<MainWindow> open() {
        auto w = std::make_unique<MainWindow>(g_dir->filePath("history"));
        w->show();
        EXPECT_TRUE(QTest::qWaitFor([&] { return w->studio().model().has_value(); }, 60000));
        return w;
    }

    // The studio's texts, each checked to be Chinese: the test cannot pass on English.
    static std::vector<ShownText> chineseTexts(MainWindow& w) {
        const auto texts = shownTexts(w);
        int tabs = 0, menus = 0, docks = 0, buttons = 0;
        for (const ShownText& t : texts) {
            EXPECT_TRUE(isCjk(t.text))
                << t.where.toStdString() << " \"" << t.text.toStdString() << "\" is not Chinese";
            tabs += t.where == "tab";
            menus += t.where == "menu";
            docks += t.where.startsWith("dock");
            buttons += t.where == "button";
        }
        EXPECT_GE(tabs, 2);
        EXPECT_GE(menus, 3);
        EXPECT_GE(docks, 3);
        EXPECT_GE(buttons, 3);
        return texts;
    }

    std::unique_ptr<QTranslator> m_translator;
};

TEST_F(CjkGlyphs, WithoutTheBundledFontTheTranslatedStudioShowsBoxes) {
    ASSERT_FALSE(g_systemCjk) << "run with the Latin font set";
    QTemporaryDir empty;
    ASSERT_TRUE(empty.isValid());
    testing::internal::CaptureStderr();
    const cjk::FontCheck r = cjk::ensureCjkFont("zh_CN", cjk::sampleText("zh_CN"), {empty.path()});
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.outcome, cjk::FontCheck::Outcome::Missing);
    EXPECT_EQ(r.fontId, -1);
    // One line, naming the fix.
    EXPECT_NE(err.find("apt install fonts-noto-cjk"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;

    auto w = open();
    for (const ShownText& t : chineseTexts(*w)) {
        const Layout l = layOut(t.text, t.font);
        EXPECT_GT(l.zeroGlyphs, 0) << t.where.toStdString() << " \"" << t.text.toStdString()
                                   << "\" has real glyphs without a CJK font";
    }
}

TEST_F(CjkGlyphs, WithTheBundledFontEveryCharacterHasARealGlyph) {
    ASSERT_FALSE(g_systemCjk) << "run with the Latin font set";
    ASSERT_TRUE(QFile::exists(HALFSCOPE_BUILD_FONT_DIR "/wqy-microhei.ttc"))
        << "the build tree has no bundled font (apt install fonts-wqy-microhei, then re-run cmake)";
    const QString sample = cjk::sampleText("zh_CN");
    EXPECT_TRUE(isCjk(sample)) << sample.toStdString();
    // No layout of the sample before the loader runs: Qt would cache its fallback fonts without
    // the bundled one (the loader's own contract, ui_fonts.h).
    const QString defaultFamily = QApplication::font().family();

    const cjk::FontCheck r = cjk::ensureCjkFont(
        "zh_CN", sample, cjk::bundledFontDirs(QCoreApplication::applicationDirPath()));
    ASSERT_EQ(r.outcome, cjk::FontCheck::Outcome::LoadedBundled) << r.fontFile.toStdString();
    EXPECT_GE(r.fontId, 0);
    EXPECT_TRUE(isBundled(r.family)) << r.family.toStdString();
    EXPECT_EQ(QFileInfo(r.fontFile).canonicalFilePath(),
              QFileInfo(HALFSCOPE_BUILD_FONT_DIR "/wqy-microhei.ttc").canonicalFilePath());
    // Latin text keeps the system font: the bundled one is a fallback, not the default.
    EXPECT_EQ(QApplication::font().family(), defaultFamily);
    std::printf("[ cost ] coverage check %.2f ms, loading the bundled font %.2f ms\n", r.checkMs,
                r.loadMs);
    RecordProperty("check_ms", QString::number(r.checkMs, 'f', 2).toStdString());
    RecordProperty("load_ms", QString::number(r.loadMs, 'f', 2).toStdString());

    auto w = open();
    const auto texts = chineseTexts(*w);
    std::printf("[ texts ] %d checked, e.g.", int(texts.size()));
    for (size_t i = 0; i < texts.size(); i += 4) std::printf(" %s;", qPrintable(texts[i].text));
    std::printf("\n");
    for (const ShownText& t : texts) {
        const Layout l = layOut(t.text, t.font);
        const std::string what = t.where.toStdString() + " \"" + t.text.toStdString() + "\"";
        EXPECT_GT(l.glyphs, 0) << what;
        EXPECT_EQ(l.zeroGlyphs, 0) << what << ": " << l.zeroGlyphs << " boxes";
        EXPECT_FALSE(l.cjkRunFamilies.isEmpty()) << what;
        for (const QString& f : l.cjkRunFamilies)
            EXPECT_EQ(f, kBundledFamily) << what << " draws its Chinese with " << f.toStdString();
        for (const QString& f : l.otherRunFamilies) EXPECT_NE(f, QString()) << what;
    }
    // The fixed-pitch system font (logs, plans) falls back to the bundled font too.
    const Layout fixed = layOut(sample, QFontDatabase::systemFont(QFontDatabase::FixedFont));
    EXPECT_EQ(fixed.zeroGlyphs, 0);
    for (const QString& f : fixed.cjkRunFamilies) EXPECT_TRUE(isBundled(f)) << f.toStdString();
    // A Latin run in the studio's default font stays in that font.
    const Layout latin = layOut("fp16 65504", QApplication::font());
    EXPECT_EQ(latin.zeroGlyphs, 0);
    ASSERT_FALSE(latin.otherRunFamilies.isEmpty());
    for (const QString& f : latin.otherRunFamilies)
        EXPECT_FALSE(isBundled(f)) << "Latin text moved to the bundled font";
}

TEST_F(CjkGlyphs, OtherLanguagesLoadNothing) {
    for (const char* locale : {"en_US", "de_DE", "C", ""}) {
        const cjk::FontCheck r = cjk::ensureCjkFont(locale);
        EXPECT_EQ(r.outcome, cjk::FontCheck::Outcome::NotNeeded) << locale;
        EXPECT_EQ(r.fontId, -1) << locale;
    }
    for (const char* locale : {"zh_CN", "zh_TW", "ja_JP", "ko_KR", "zh"})
        EXPECT_TRUE(cjk::localeNeedsCjk(locale)) << locale;
}

// Registered as its own ctest with HALFSCOPE_TEST_FONT_SET=latin+cjk: an installed CJK font
// (fonts-noto-cjk from the package's Recommends, Microsoft YaHei on Windows) means nothing is
// loaded, and the text renders from the system font.
TEST_F(CjkGlyphs, AnInstalledCjkFontMeansNothingIsLoaded) {
    if (!g_systemCjk) GTEST_SKIP() << "needs HALFSCOPE_TEST_FONT_SET=latin+cjk";
    const cjk::FontCheck r =
        cjk::ensureCjkFont("zh_CN", cjk::sampleText("zh_CN"),
                           cjk::bundledFontDirs(QCoreApplication::applicationDirPath()));
    EXPECT_EQ(r.outcome, cjk::FontCheck::Outcome::SystemCovers);
    EXPECT_EQ(r.fontId, -1);
    EXPECT_TRUE(QFontDatabase::applicationFontFamilies(0).isEmpty());
    std::printf("[ cost ] coverage check with a system CJK font %.2f ms\n", r.checkMs);
    auto w = open();
    for (const ShownText& t : chineseTexts(*w))
        EXPECT_EQ(layOut(t.text, t.font).zeroGlyphs, 0) << t.text.toStdString();
}

// A fonts.conf listing only `dirs`, with its cache in the temporary folder.
QString writeFontsConf(const QStringList& dirs) {
    QString xml =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n"
        "<fontconfig>\n";
    for (const QString& d : dirs) xml += "  <dir>" + d + "</dir>\n";
    xml += "  <cachedir>" + g_dir->filePath("fontconfig-cache") + "</cachedir>\n</fontconfig>\n";
    const QString path = g_dir->filePath("fonts.conf");
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(xml.toUtf8()) < 0 || !f.commit()) return {};
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir dir;
    g_dir = &dir;
    g_systemCjk = qEnvironmentVariable("HALFSCOPE_TEST_FONT_SET") == "latin+cjk";
    QStringList fontDirs = {kLatinDir};
    if (g_systemCjk) fontDirs << kCjkDir;
    for (const QString& d : fontDirs)
        if (!QDir(d).exists())
            g_setupError +=
                "missing font folder " + d + " (fonts-dejavu-core, fonts-wqy-microhei); ";
    const QString conf = writeFontsConf(fontDirs);
    if (!dir.isValid() || conf.isEmpty()) g_setupError += "cannot write fonts.conf; ";
    // Before QApplication: fontconfig reads it on Qt's first font query. The bundled font is only
    // found through the loader ($HALFSCOPE_FONT_DIR would add a folder, so it is cleared).
    qputenv("FONTCONFIG_FILE", conf.toLocal8Bit());
    qunsetenv("FONTCONFIG_PATH");
    // The rules include the user's fontconfig files ($XDG_CONFIG_HOME/fontconfig): none here.
    qputenv("XDG_CONFIG_HOME", dir.filePath("config").toLocal8Bit());
    qunsetenv("HALFSCOPE_FONT_DIR");
    QApplication app(argc, argv);
    QApplication::setOrganizationName("HalfscopeTests");
    QApplication::setApplicationName("halfscope-tests");
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
