#pragma once
// Sections of the HTML report (html_report.h), one function each. Internal.
#include <sstream>
#include <string>

#include "report/html_report.h"

namespace hs::html {

// Colour of run i in plots and headings.
std::string runColor(size_t i);
// "<h3>" with the run's label in its colour.
std::string runHeading(const Report& r, size_t i);

void summary(std::ostringstream& o, const Report& r);
void environment(std::ostringstream& o, const Report& r);
void components(std::ostringstream& o, const Report& r);
void plans(std::ostringstream& o, const Report& r);
void stepCurves(std::ostringstream& o, const Report& r);
void previews(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void heatmaps(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void firstFailures(std::ostringstream& o, const Report& r);
void headroom(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt);
void divergence(std::ostringstream& o, const Report& r);
void bisection(std::ostringstream& o, const Report& r);
void remedies(std::ostringstream& o, const Report& r);
void advice(std::ostringstream& o, const Report& r);

}  // namespace hs::html
