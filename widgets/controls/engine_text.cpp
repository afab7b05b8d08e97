#include "engine_text.h"

#include <QCoreApplication>
#include <QLocale>

namespace engine_text {

namespace {

std::string translated(const hs::MessageTemplate& t) {
    const std::string source(t.text);  // a literal, but a view need not end in '\0'
    return QCoreApplication::translate("Engine", source.c_str()).toStdString();
}

}  // namespace

QString text(const hs::MessageText& m, const std::string& english) {
    return QString::fromStdString(hs::renderText(m, english, translated));
}

QString text(const hs::Message& m) {
    return text(hs::MessageText{m}, hs::englishText(m));
}

QString name(const std::string& name) {
    return QCoreApplication::translate("Engine", name.c_str());
}

hs::MessageTranslator translator() {
    return translated;
}

std::string languageTag() {
    // A probe template: translated means the engine's sentences are not English.
    const char* probe = "Summary";
    if (QCoreApplication::translate("Engine", probe) == QLatin1String(probe)) return "en";
    const QStringList languages = QLocale().uiLanguages();
    return languages.isEmpty() ? "und" : languages.front().toStdString();
}

}  // namespace engine_text
