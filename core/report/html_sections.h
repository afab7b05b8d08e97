#pragma once
// Sections of the HTML report (html_report.h), one function each. Internal.
#include <sstream>
#include <string>
#include <vector>

#include "report/html_report.h"

namespace hs::html {

// An engine sentence in the report's language, escaped: `english` without a translator or a
// message.
std::string say(const HtmlReportOptions& opt, const MessageText& m, const std::string& english);
// A message without arguments (a heading), escaped.
std::string heading(const HtmlReportOptions& opt, const char* id);

// The report's own words (a label, a table heading, an explanation, a plot title) in the
// reader's language, escaped: `english` is the template the studio translates (context
// "Engine", listed for lupdate in widgets/controls/report_phrases.cpp) and %1..%9 are filled
// from `args` (plain text, escaped with the rest).
std::string phrase(const HtmlReportOptions& opt, const char* english,
                   const std::vector<std::string>& args = {});
// The same with arguments that are HTML already (a name in a <span>): only the template is
// escaped.
std::string phraseHtml(const HtmlReportOptions& opt, const char* english,
                       const std::vector<std::string>& htmlArgs);
// The same, not escaped: for the SVG plots, which escape their texts themselves.
std::string plainPhrase(const HtmlReportOptions& opt, const char* english,
                        const std::vector<std::string>& args = {});
// "step 3", not escaped.
std::string stepText(const HtmlReportOptions& opt, int step);
// "fp16 emulated": where a component or a point ran, escaped.
std::string ranIn(const HtmlReportOptions& opt, Format format, Execution execution);
// SpreadLink::text() in the reader's language, escaped: a block, or the latents or the image.
std::string linkHtml(const SpreadLink& l, const HtmlReportOptions& opt);
// FirstFailure::chainText() in the reader's language, escaped.
std::string chainHtml(const FirstFailure& ff, const HtmlReportOptions& opt);
// "✓ pass" or "✗ fail", escaped.
std::string passText(bool passed, const HtmlReportOptions& opt);
// An engine name (a probe level "layer", a bisection status "cannot_fix" or phase "from_start",
// a spread link "latents") in the reader's language, escaped: the name is its own source text
// (listed in widgets/controls/report_phrases.cpp), so an English report shows it as it is.
std::string nameText(const HtmlReportOptions& opt, const std::string& name);

// Colour of run i in plots and headings.
std::string runColor(size_t i);
// "<h3>" with the run's label in its colour.
std::string runHeading(const Report& r, size_t i, const HtmlReportOptions& opt);

void summary(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void environment(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void components(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void plans(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void stepCurves(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void previews(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void heatmaps(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void firstFailures(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void headroom(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void divergence(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void bisection(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void remedies(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void advice(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);

}  // namespace hs::html
