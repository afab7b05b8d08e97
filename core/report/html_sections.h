#pragma once
// Sections of the HTML report (html_report.h), one function each. Internal.
#include <sstream>
#include <string>

#include "report/html_report.h"

namespace hs::html {

// An engine sentence in the report's language, escaped: `english` without a translator or a
// message.
std::string say(const HtmlReportOptions& opt, const MessageText& m, const std::string& english);
// A message without arguments (a heading), escaped.
std::string heading(const HtmlReportOptions& opt, const char* id);

// Colour of run i in plots and headings.
std::string runColor(size_t i);
// "<h3>" with the run's label in its colour.
std::string runHeading(const Report& r, size_t i);

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
