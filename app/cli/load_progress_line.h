#pragma once
// Loading progress on stderr for the commands that load a model (generate, compare, bisect):
// "loading transformer: shard 1/2, 1.2/4.0 GB, 3 s left". On a terminal one line updated in
// place (\r) ten times a second; otherwise (a log, a pipe) a plain line a second, so a log stays
// short. Lives for the whole command: each component's load reports through it
// (base/load_progress.h). --quiet leaves it out.
#ifdef _WIN32
#include <io.h>
#define HS_ISATTY(f) (::_isatty(::_fileno(f)) != 0)
#else
#include <unistd.h>
#define HS_ISATTY(f) (::isatty(::fileno(f)) == 1)
#endif

#include <cstdio>
#include <string>

#include "io/terminal_text.h"
#include "base/load_progress.h"

namespace hs::cli {

class StderrLoadProgress {
public:
    StderrLoadProgress()
        : m_tty(HS_ISATTY(stderr)),
          m_scope([this](const LoadProgress& p) { print(p); }, m_tty ? 0.1 : 1.0) {}
    ~StderrLoadProgress() {
        if (m_open) std::fputc('\n', stderr);  // a cancelled load leaves its line complete
    }
    StderrLoadProgress(const StderrLoadProgress&) = delete;
    StderrLoadProgress& operator=(const StderrLoadProgress&) = delete;

private:
    void print(const LoadProgress& p) {
        const std::string line = "loading " + printable(loadProgressText(p));
        if (m_tty) {
            std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), p.done ? "\n" : "");
            m_open = !p.done;
        } else {
            std::fprintf(stderr, "%s\n", line.c_str());
        }
        std::fflush(stderr);
    }
    bool m_tty;
    bool m_open = false;
    LoadProgressScope m_scope;
};

}  // namespace hs::cli
