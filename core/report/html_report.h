#pragma once
// The HTML report: ONE self-contained file (no external resource of any kind; images are data:
// URIs, plots are inline SVG generated here, no script). A Content-Security-Policy meta tag
// forbids every fetch except data: images, so a browser proves it self-contained.
// Sections: summary verdicts, environment, components with stored dtypes, configuration and
// plans, step curves (latent |max| on a log axis with the fp16 limit, min/max/mean/std, NaN/Inf
// counts), previews, a layer heatmap (points x steps, coloured by max|x| relative to 65504,
// first non-finite outlined), first failure and its chain, headroom, latent divergence (for a
// comparison), bisection, advice. Several runs are shown side by side. All user text is
// escaped. No LibTorch.
#include <string>

#include "records/message.h"
#include "report/report_types.h"

namespace hs {

struct HtmlReportOptions {
    int maxHeatmapRows = 160;  // more probe points than this: one heatmap row per block
    int maxPreviews = 48;      // per run; more are evenly thinned out (the final image stays)
    int headroomTopRows = 20;  // rows of the "closest to the limit" table
    // The reader's language for the engine's sentences (verdicts, first failure, headroom note,
    // advice) and the section headings: a translator of message templates (records/message.h)
    // and its HTML language tag. None: English. The tables, labels and explanations of the
    // report stay English.
    MessageTranslator translate;
    std::string language = "en";
};

std::string reportToHtml(const Report& report, const HtmlReportOptions& options = {});
// Atomic (temporary file + rename). Throws FileError.
void writeReportHtml(const std::string& path, const Report& report,
                     const HtmlReportOptions& options = {});

}  // namespace hs
