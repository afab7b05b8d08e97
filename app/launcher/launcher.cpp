// `halfscope` and `halfscope-cli` as users start them: sets OMP_WAIT_POLICY=PASSIVE (unless it
// is set, or HALFSCOPE_KEEP_OMP_WAIT is) and runs the real program from ../libexec/halfscope/.
//
// libgomp reads the variable once, when LibTorch loads it, before the program's main() and
// before any initialiser of the program itself: only the environment the process starts with
// counts. This launcher loads nothing but libc (about a millisecond), where the real program
// re-executing itself loaded LibTorch and its ~290 libraries twice (0.3 s of every start).
// Passive waits: see runtime/runtime.h.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        std::fprintf(stderr, "%s: cannot find where it is installed (/proc/self/exe)\n",
                     HALFSCOPE_ENGINE);
        return 2;
    }
    self[n] = '\0';
    std::string dir(self);
    dir.erase(dir.rfind('/'));
    const std::string engine = dir + "/../libexec/halfscope/" HALFSCOPE_ENGINE;
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("HALFSCOPE_KEEP_OMP_WAIT"))
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    (void)argc;
    execv(engine.c_str(), argv);
    std::fprintf(stderr, "%s: cannot start %s: %s\n", HALFSCOPE_ENGINE, engine.c_str(),
                 std::strerror(errno));
    return 2;
}
