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
// An engine name the HTML report shows too (a bisection phase "from_start", a probe level
// "layer": widgets/controls/report_phrases.cpp), in the installed language; as it is when the
// catalogue lacks it.
QString name(const std::string& name);
// For core's renderers (the HTML report): templates translated by the installed translators.
hs::MessageTranslator translator();
// The HTML language tag of the installed translation ("zh-CN"), "en" when the engine's
// templates are not translated.
std::string languageTag();

// Every template, as lupdate sees it (engine_messages.cpp): id and English source text.
const std::vector<std::pair<const char*, const char*>>& templateList();
// The HTML report's own words, as lupdate sees them (report_phrases.cpp): English source texts
// the report translates through translator() like the templates.
const std::vector<const char*>& reportPhraseList();

}  // namespace engine_text
