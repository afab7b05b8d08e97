#pragma once
// Chinese (and Japanese, Korean) text that renders: on a system without a CJK font the translated
// studio would draw every character as a box. At start-up, before any widget exists, the studio
// checks whether the installed fonts have real glyphs for its translated text and, when they do
// not, loads the font shipped in <prefix>/share/halfscope/fonts as a fallback.
#include <QFont>
#include <QString>
#include <QStringList>

namespace cjk {

// True for the languages whose text needs CJK glyphs: zh*, ja*, ko* ("zh_CN", "ja", "ko_KR").
bool localeNeedsCjk(const QString& locale);

// A sample of the interface text in `locale`: a few translated studio strings (through the
// installed translators) and the language's name in itself, so the sample holds CJK characters
// even when the translation is missing. Empty for a language that needs no CJK glyphs.
QString sampleText(const QString& locale);

// True when `text` holds a Han, kana or Hangul character.
bool containsCjk(const QString& text);

// True when every character of `text` gets a real glyph when laid out in `font`,
// fallback fonts included: no glyph index 0 (.notdef, drawn as a box).
bool rendersWithRealGlyphs(const QString& text, const QFont& font);

// The folders searched for the bundled font, for a program in `exeDir`: installed as
// <prefix>/libexec/halfscope/<program> or <prefix>/bin/<program> (Windows), and in the build tree
// (build/libexec/halfscope/halfscope, build/tests/<test>), which copies the font to
// build/share/halfscope/fonts. $HALFSCOPE_FONT_DIR, when set, comes first.
QStringList bundledFontDirs(const QString& exeDir);

struct FontCheck {
    enum class Outcome {
        NotNeeded,      // the language needs no CJK glyphs
        SystemCovers,   // an installed font draws the sample: nothing loaded
        LoadedBundled,  // the bundled font was loaded and made a fallback
        Missing,        // no font draws the sample (one line was written to stderr)
    };
    Outcome outcome = Outcome::NotNeeded;
    QString fontFile;    // the bundled file loaded, if any
    QString family;      // its family, if any
    int fontId = -1;     // QFontDatabase::addApplicationFont id, -1 when nothing was loaded
    double checkMs = 0;  // time spent checking the installed fonts' coverage
    double loadMs = 0;   // time spent loading the bundled font (and checking it)
};

// Needs a QGuiApplication and must run before any text is laid out (Qt caches the fallback fonts
// of each family and script). For a CJK `locale` whose `sample` no installed font of the
// language's writing system draws, loads the first bundled font found in `fontDirs` (*.ttc,
// *.ttf, *.otf) as an application font: Qt falls back to it for the characters the system fonts
// lack, and Latin text keeps the system fonts. Then lays the sample out in the application font
// to check that every character has a real glyph.
FontCheck ensureCjkFont(const QString& locale, const QString& sample, const QStringList& fontDirs);

// ensureCjkFont(locale, sampleText(locale), bundledFontDirs(applicationDirPath)).
FontCheck ensureCjkFont(const QString& locale);

}  // namespace cjk
