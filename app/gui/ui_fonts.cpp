#include "ui_fonts.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGlyphRun>
#include <QRawFont>
#include <QTextLayout>
#include <cstdio>

namespace cjk {

bool localeNeedsCjk(const QString& locale) {
    return locale.startsWith(QLatin1String("zh")) || locale.startsWith(QLatin1String("ja")) ||
           locale.startsWith(QLatin1String("ko"));
}

bool containsCjk(const QString& text) {
    for (const uint c : text.toUcs4()) {
        const QChar::Script s = QChar::script(c);
        if (s == QChar::Script_Han || s == QChar::Script_Hiragana || s == QChar::Script_Katakana ||
            s == QChar::Script_Hangul)
            return true;
    }
    return false;
}

QString sampleText(const QString& locale) {
    if (!localeNeedsCjk(locale)) return {};
    // Strings seen on the first screen (menus, the Generate button), as the translators give
    // them; an untranslated one adds Latin letters only, which every font draws.
    QStringList parts = {
        QCoreApplication::translate("MainWindow", "&File"),
        QCoreApplication::translate("MainWindow", "&Run"),
        QCoreApplication::translate("MainWindow", "&View"),
        QCoreApplication::translate("PromptPanel", "Generate"),
    };
    // The language named in itself: CJK characters even without a translation.
    if (locale.startsWith(QLatin1String("ja")))
        parts << QStringLiteral("\u65e5\u672c\u8a9e");  // 日本語
    else if (locale.startsWith(QLatin1String("ko")))
        parts << QStringLiteral("\ud55c\uad6d\uc5b4");  // 한국어
    else if (locale.startsWith(QLatin1String("zh_TW")) || locale.startsWith(QLatin1String("zh_HK")))
        parts << QStringLiteral("\u7e41\u9ad4\u4e2d\u6587");  // 繁體中文
    else
        parts << QStringLiteral("\u7b80\u4f53\u4e2d\u6587");  // 简体中文
    return parts.join(QLatin1Char(' ')).remove(QLatin1Char('&'));
}

bool rendersWithRealGlyphs(const QString& text, const QFont& font) {
    // Laid out as a widget would: Qt picks a fallback font per character, and a character no font
    // has gets glyph 0 of the primary font.
    QTextLayout layout(text, font);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    }
    layout.endLayout();
    for (const QGlyphRun& run : layout.glyphRuns())
        for (const quint32 g : run.glyphIndexes())
            if (g == 0) return false;
    return true;
}

QStringList bundledFontDirs(const QString& exeDir) {
    QStringList dirs;
    const QString env = qEnvironmentVariable("HALFSCOPE_FONT_DIR");
    if (!env.isEmpty()) dirs << env;
    const QDir exe(exeDir);
    dirs << QDir::cleanPath(exe.filePath("../../share/halfscope/fonts"))
         << QDir::cleanPath(exe.filePath("../share/halfscope/fonts"));
    return dirs;
}

namespace {

QString firstFontFile(const QStringList& dirs) {
    for (const QString& d : dirs) {
        const QFileInfoList files = QDir(d).entryInfoList(
            {QStringLiteral("*.ttc"), QStringLiteral("*.ttf"), QStringLiteral("*.otf")},
            QDir::Files | QDir::Readable, QDir::Name);
        if (!files.isEmpty()) return files.first().absoluteFilePath();
    }
    return {};
}

QFontDatabase::WritingSystem writingSystem(const QString& locale) {
    if (locale.startsWith(QLatin1String("ja"))) return QFontDatabase::Japanese;
    if (locale.startsWith(QLatin1String("ko"))) return QFontDatabase::Korean;
    if (locale.startsWith(QLatin1String("zh_TW")) || locale.startsWith(QLatin1String("zh_HK")))
        return QFontDatabase::TraditionalChinese;
    return QFontDatabase::SimplifiedChinese;
}

// An installed family that claims the locale's writing system and has a real glyph for every
// non-ASCII character of `sample`; empty when none has. Deliberately not a text layout of the
// application font: Qt caches the fallback families of a family per script, and a layout made
// before the bundled font is added would keep drawing boxes after it is.
QString installedFamilyCovering(const QString& locale, const QString& sample) {
    QList<uint> needed;
    for (const uint c : sample.toUcs4())
        if (c > 0x7f && !QChar::isSpace(c) && !needed.contains(c)) needed << c;
    for (const QString& family : QFontDatabase::families(writingSystem(locale))) {
        if (QFontDatabase::isPrivateFamily(family)) continue;
        const QRawFont raw = QRawFont::fromFont(QFont(family), writingSystem(locale));
        if (!raw.isValid()) continue;
        bool all = true;
        for (const uint c : needed)
            if (!raw.supportsCharacter(c)) {
                all = false;
                break;
            }
        if (all) return family;
    }
    return {};
}

double elapsedMs(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

void reportMissing(const QString& locale, const QString& why) {
    std::fprintf(stderr,
                 "halfscope: no installed font has the characters of the interface language %s "
                 "(%s), so they show as boxes; install one (Debian, Ubuntu: apt install "
                 "fonts-noto-cjk) or choose English in File > Settings\n",
                 qPrintable(locale), qPrintable(why));
}

}  // namespace

FontCheck ensureCjkFont(const QString& locale, const QString& sample, const QStringList& fontDirs) {
    FontCheck r;
    if (!localeNeedsCjk(locale) || sample.isEmpty()) return r;
    QElapsedTimer timer;
    timer.start();
    const QString installed = installedFamilyCovering(locale, sample);
    r.checkMs = elapsedMs(timer);
    if (!installed.isEmpty()) {
        r.outcome = FontCheck::Outcome::SystemCovers;
        r.family = installed;
        return r;
    }

    timer.restart();
    r.outcome = FontCheck::Outcome::Missing;
    r.fontFile = firstFontFile(fontDirs);
    if (r.fontFile.isEmpty()) {
        r.loadMs = elapsedMs(timer);
        reportMissing(locale, QStringLiteral("no bundled font in %1")
                                  .arg(QDir::toNativeSeparators(fontDirs.join(", "))));
        return r;
    }
    r.fontId = QFontDatabase::addApplicationFont(r.fontFile);
    const QStringList families = QFontDatabase::applicationFontFamilies(r.fontId);
    if (r.fontId < 0 || families.isEmpty()) {
        r.loadMs = elapsedMs(timer);
        reportMissing(
            locale,
            QStringLiteral("%1 cannot be loaded").arg(QDir::toNativeSeparators(r.fontFile)));
        return r;
    }
    // A .ttc holds several faces (WenQuanYi Micro Hei and its Mono twin): the first is the
    // proportional one.
    r.family = families.first();

    // Nothing more to do: Qt asks the platform for fallback families per script when a
    // character is missing from a font, and the platform's list includes application fonts
    // (fontconfig does), so Latin text keeps the system's fonts and the CJK characters are
    // drawn from the bundled one, in every widget made from now on. The layout below proves it.
    const bool covered = rendersWithRealGlyphs(sample, QApplication::font());
    r.loadMs = elapsedMs(timer);
    if (covered)
        r.outcome = FontCheck::Outcome::LoadedBundled;
    else
        reportMissing(locale, QStringLiteral("the bundled %1 lacks some of them")
                                  .arg(QDir::toNativeSeparators(r.fontFile)));
    return r;
}

FontCheck ensureCjkFont(const QString& locale) {
    return ensureCjkFont(locale, sampleText(locale),
                         bundledFontDirs(QCoreApplication::applicationDirPath()));
}

}  // namespace cjk
