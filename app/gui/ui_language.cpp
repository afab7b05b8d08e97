#include "ui_language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>

namespace {

// Qt's zh_CN catalogue (qtbase, as Debian 12 ships it) lacks the type names that Qt 6's file
// dialogs show in their details view; the studio's catalogue holds them (lupdate reads this).
struct QtSource {
    const char* source;
    const char* comment;
};
[[maybe_unused]] const QtSource kQtGaps[] = {
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"), ""},
    QT_TRANSLATE_NOOP3("QAbstractFileIconProvider", "Folder", "All other platforms"),
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Unknown"), ""}};

}  // namespace

namespace ui_language {

QList<QTranslator*> installTranslators(const QString& locale, const QString& ownDir) {
    QList<QTranslator*> installed;
    if (locale.startsWith("en")) return installed;
    const auto install = [&](const QString& file, const QString& dir) {
        auto* t = new QTranslator(QCoreApplication::instance());
        if (t->load(file, dir) && QCoreApplication::installTranslator(t))
            installed << t;
        else
            delete t;
    };
    install("qtbase_" + locale, QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    install("halfscope_" + locale, ownDir);
    return installed;
}

}  // namespace ui_language
