#pragma once
// A progress line on stderr: on a terminal one line that updates replace in place (\r, then
// erase to the end), elsewhere (a log, a pipe) plain lines; and StderrScopeProgress, which
// prints a progress scope's reports through it (load_progress_line.h, work_progress_line.h).
#ifdef _WIN32
#include <io.h>
#define HS_ISATTY(f) (::_isatty(::_fileno(f)) != 0)
#else
#include <unistd.h>
#define HS_ISATTY(f) (::isatty(::fileno(f)) == 1)
#endif

#include <cstdio>
#include <string>

namespace hs::cli {

class StderrLine {
public:
    StderrLine() : m_tty(HS_ISATTY(stderr)) {}
    ~StderrLine() { end(); }  // a cancelled load or run leaves its line complete
    StderrLine(const StderrLine&) = delete;
    StderrLine& operator=(const StderrLine&) = delete;

    bool tty() const { return m_tty; }
    // Seconds between updates: ten a second on a terminal, one a second elsewhere, so a log
    // stays short.
    double interval() const { return m_tty ? 0.1 : 1.0; }
    // On a terminal: `text` replaces the line that is open, which stays open.
    void replace(const std::string& text) {
        std::fprintf(stderr, "\r%s\033[K", text.c_str());
        m_open = true;
        std::fflush(stderr);
    }
    // `text` as a line of its own, after the open line (if any) is ended.
    void add(const std::string& text) {
        end();
        std::fprintf(stderr, "%s\n", text.c_str());
        std::fflush(stderr);
    }
    // Ends the open line, if any.
    void end() {
        if (m_open) std::fputc('\n', stderr);
        m_open = false;
    }

private:
    bool m_tty;
    bool m_open = false;
};

// For as long as it lives, every report of a progress scope (Scope: base/load_progress.h's
// LoadProgressScope or base/work_progress.h's WorkProgressScope) goes to `Print`, which writes
// it on the line.
template <typename Progress, typename Scope, void (*Print)(StderrLine&, const Progress&)>
class StderrScopeProgress {
public:
    StderrScopeProgress()
        : m_scope([this](const Progress& p) { Print(m_line, p); }, m_line.interval()) {}
    StderrScopeProgress(const StderrScopeProgress&) = delete;
    StderrScopeProgress& operator=(const StderrScopeProgress&) = delete;

private:
    StderrLine m_line;  // before m_scope, which reports into it
    Scope m_scope;
};

}  // namespace hs::cli
