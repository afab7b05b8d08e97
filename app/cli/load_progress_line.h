#pragma once
// Loading progress on stderr for the commands that load a model (generate, compare, bisect):
// "loading transformer: shard 1/2, 1.2/4.0 GB, 3 s left". On a terminal one line updated in
// place (\r) ten times a second; otherwise (a log, a pipe) a plain line a second, so a log stays
// short. Lives for the whole command: each component's load reports through it
// (base/load_progress.h). --quiet leaves it out.
#include <string>

#include "base/load_progress.h"
#include "cli/stderr_line.h"
#include "io/terminal_text.h"

namespace hs::cli {

inline void printLoadProgress(StderrLine& out, const LoadProgress& p) {
    const std::string line = "loading " + printable(loadProgressText(p));
    if (out.tty()) {
        out.replace(line);
        if (p.done) out.end();
    } else {
        out.add(line);
    }
}

using StderrLoadProgress = StderrScopeProgress<LoadProgress, LoadProgressScope, printLoadProgress>;

}  // namespace hs::cli
