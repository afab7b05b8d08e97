#pragma once
// The engine's sentences (verdicts, first failure, headroom notes, advice: records/message.h)
// in the studio's language. Core writes them in English and keeps each as a message id with
// arguments; here the English template is looked up with QCoreApplication::translate("Engine",
// template) and the arguments are filled in, so a zh_CN studio shows them in Chinese. Without
// an installed translation (or for a message this version does not know) the English stays.
#include <QString>
#include <string>
#include <utility>
#include <vector>

#include "records/message.h"

namespace engine_text {

// `english` in the installed language; `english` itself when `m` is empty or unknown.
QString text(const hs::MessageText& m, const std::string& english);
// One message (a verdict name, a heading), English when unknown.
QString text(const hs::Message& m);
// For core's renderers (the HTML report): templates translated by the installed translators.
hs::MessageTranslator translator();
// The HTML language tag of the installed translation ("zh-CN"), "en" when the engine's
// templates are not translated.
std::string languageTag();

// Every template, as lupdate sees it (engine_messages.cpp): id and English source text.
const std::vector<std::pair<const char*, const char*>>& templateList();

}  // namespace engine_text
