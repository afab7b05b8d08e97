#pragma once
// The progress of a run's long parts on stderr, beside the loading lines (load_progress_line.h):
// "text encoder: done in 0.4 s", "transformer: block 3/19 resident (transformer_blocks.2.)",
// "trial 3 of at most 32 (bisection)", the run's estimate after its first step ("estimate:
// about 12 s and 1.4 GB ...") and at its end "took 11.2 s; estimated about 12 s"
// (base/work_progress.h). Block lines replace each other in place on a terminal; elsewhere
// they come at most once a second. --quiet leaves all of it out.
#include <cstdio>
#include <string>

#include "cli/load_progress_line.h"
#include "io/terminal_text.h"
#include "base/work_progress.h"

namespace hs::cli {

class StderrWorkProgress {
public:
    StderrWorkProgress()
        : m_tty(HS_ISATTY(stderr)),
          m_scope([this](const WorkProgress& p) { print(p); }, m_tty ? 0.1 : 1.0) {}
    ~StderrWorkProgress() { endLine(); }
    StderrWorkProgress(const StderrWorkProgress&) = delete;
    StderrWorkProgress& operator=(const StderrWorkProgress&) = delete;

private:
    void endLine() {
        if (m_open) std::fputc('\n', stderr);
        m_open = false;
    }
    void print(const WorkProgress& p) {
        // A stage's start is the run's own "text encoder..." line: its end says how long. A
        // trial's end is bisect's own "trial N ... pass" line: its start says how far.
        const bool stage = p.kind == WorkKind::TextEncoding || p.kind == WorkKind::VaeDecoding;
        if ((stage && !p.done) || (p.kind == WorkKind::Trial && p.done)) return;
        const std::string line = printable(workProgressText(p));
        if (p.kind == WorkKind::Block && m_tty) {
            std::fprintf(stderr, "\r%s\033[K", line.c_str());
            m_open = true;
        } else {
            endLine();
            std::fprintf(stderr, "%s\n", line.c_str());
        }
        std::fflush(stderr);
    }
    bool m_tty;
    bool m_open = false;
    WorkProgressScope m_scope;
};

}  // namespace hs::cli
