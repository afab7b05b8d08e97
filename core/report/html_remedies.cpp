// The "Remedies" section of the HTML report: each remedy tried, ranked, with its image change
// against the reference and its cost on the target device.
#include "diagnosis/blocks.h"
#include "report/html_sections.h"
#include "report/html_util.h"

namespace hs::html {

void remedies(std::ostringstream& o, const Report& r, const HtmlReportOptions& opt) {
    if (!r.remedies) return;  // only reports of a remedy search have the section
    const RemedyTable& t = *r.remedies;
    o << "<section id=\"remedies\"><h2>" << heading(opt, "report.section.remedies")
      << "</h2><div class=\"card\"><p><b>" << say(opt, t.messageText, t.message)
      << "</b></p><table><tr><th>" << phrase(opt, "failing blocks") << "</th><td class=\"mono\">"
      << (t.failingBlocks.empty() ? phrase(opt, "none found")
                                  : esc(describeBlocks(t.failingBlocks)))
      << "</td></tr><tr><th>" << phrase(opt, "reference") << "</th><td class=\"mono\">"
      << esc(t.referencePlan) << "</td></tr><tr><th>" << phrase(opt, "costs for") << "</th><td>"
      << esc(t.target) << "</td></tr></table><p class=\"muted\">"
      << phrase(opt,
                "Rows that pass come first, then fewer plan changes, then a smaller image "
                "change, then the cheaper one on the target. The time per step was measured on "
                "the machine that made this report.")
      << "</p>";
    o << "<div class=\"scroll\"><table><tr><th class=\"n\">#</th><th>" << phrase(opt, "remedy")
      << "</th><th>" << phrase(opt, "result") << "</th><th class=\"n\">" << phrase(opt, "changes")
      << "</th><th class=\"n\">NaN/Inf</th><th class=\"n\">" << phrase(opt, "difference")
      << "</th><th class=\"n\">PSNR dB</th><th class=\"n\">" << phrase(opt, "s/step here")
      << "</th><th>" << phrase(opt, "cost on the target") << "</th><th>" << phrase(opt, "plan")
      << "</th></tr>";
    for (const auto& x : t.rows)
        o << "<tr" << (x.passed ? "" : " class=\"bad\"") << "><td class=\"n\">" << x.rank
          << "</td><td>" << say(opt, remedyActionMessage(x.candidate), remedyAction(x.candidate))
          << "</td><td class=\"nw\" title=\"" << say(opt, x.whyMessage, x.why) << "\">"
          << passText(x.passed, opt) << "</td><td class=\"n\">" << x.candidate.changes
          << "</td><td class=\"n\">" << count(x.outcome.nonFinite) << "</td><td class=\"n\">"
          << num(x.outcome.difference) << "</td><td class=\"n\">" << num(x.psnr)
          << "</td><td class=\"n\">" << num(x.secondsPerStep) << "</td><td>"
          << say(opt, x.costMessage, x.cost) << "</td><td><code class=\"plan\">" << esc(x.planText)
          << "</code></td></tr>";
    o << "</table></div></div></section>";
}

}  // namespace hs::html
