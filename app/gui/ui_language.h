#pragma once
// The studio's interface language: Qt's own translation (qtbase_<locale>: the standard buttons
// and the file dialogs, from Qt's translations folder) and the studio's (halfscope_<locale>),
// installed into the application. main() calls it before any widget exists; the zh_CN strings
// test calls it with the build tree's compiled catalogue.
#include <QList>
#include <QString>

class QTranslator;

namespace ui_language {

// Installs both translations of `locale` ("zh_CN"); the studio's is read from `ownDir` (":/i18n"
// in the executable). English, or a translation that is missing, installs nothing. Returns the
// installed translators (owned by the application).
QList<QTranslator*> installTranslators(const QString& locale,
                                       const QString& ownDir = QStringLiteral(":/i18n"));

}  // namespace ui_language
