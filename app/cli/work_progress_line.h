#pragma once
// The progress of a run's long parts on stderr, beside the loading lines (load_progress_line.h):
// "text encoder: done in 0.4 s", "transformer: block 3/19 resident (transformer_blocks.2.)",
// "trial 3 of at most 32 (bisection)", the run's estimate after its second step ("estimate:
// about 12 s and 1.4 GB ...") and at its end "took 11.2 s; estimated about 12 s"
// (base/work_progress.h). Block lines replace each other in place on a terminal; elsewhere
// they come at most once a second. --quiet leaves all of it out.
#include <string>

#include "base/work_progress.h"
#include "cli/stderr_line.h"
#include "io/terminal_text.h"

namespace hs::cli {

inline void printWorkProgress(StderrLine& out, const WorkProgress& p) {
    // A stage's start is the run's own "text encoder..." line: its end says how long. A trial's
    // end is bisect's own "trial N ... pass" line: its start says how far.
    const bool stage = p.kind == WorkKind::TextEncoding || p.kind == WorkKind::VaeDecoding;
    if ((stage && !p.done) || (p.kind == WorkKind::Trial && p.done)) return;
    const std::string line = printable(workProgressText(p));
    if (p.kind == WorkKind::Block && out.tty())
        out.replace(line);
    else
        out.add(line);
}

using StderrWorkProgress = StderrScopeProgress<WorkProgress, WorkProgressScope, printWorkProgress>;

}  // namespace hs::cli
