// Ctrl-C on halfscope-cli: the run stops within one block (base/cancel.h), the command exits
// 130 as shells expect, and no PNG or report of the cut-short run is written.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "test_util.h"

namespace fs = std::filesystem;

namespace {

struct Interrupted {
    int status = -1;
    double secondsAfterSignal = 0;  // from the signal to the process's exit
    std::string err;
};

// Starts `args`, waits until its stderr shows `marker` (the run is under way), sends SIGINT,
// and waits for it to end. A shell without job control starts background commands with SIGINT
// ignored; the CLI installs its own handler, so the signal still reaches it.
Interrupted interruptCli(const std::string& dir, const std::string& args,
                         const std::string& marker) {
    const std::string err = dir + "/stderr.txt";
    const std::string script = dir + "/interrupt.sh";
    if (std::FILE* f = std::fopen(script.c_str(), "w")) {
        std::fprintf(f,
                     "%s %s 2>%s & pid=$!\n"
                     "for i in $(seq 1 1200); do grep -q '%s' %s && break; sleep 0.05; done\n"
                     "kill -INT $pid; date +%%s.%%N; wait $pid; echo status=$?; date +%%s.%%N\n",
                     HALFSCOPE_CLI, args.c_str(), err.c_str(), marker.c_str(), err.c_str());
        std::fclose(f);
    }
    FILE* p = popen(("sh " + script).c_str(), "r");
    std::string out;
    char buf[512];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
    Interrupted r;
    double sent = 0, ended = 0;
    std::sscanf(out.c_str(), "%lf\nstatus=%d\n%lf", &sent, &r.status, &ended);
    r.secondsAfterSignal = ended - sent;
    std::FILE* f = std::fopen(err.c_str(), "r");
    if (f) {
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.err.append(buf, n);
        std::fclose(f);
    }
    return r;
}

}  // namespace

TEST(CliInterrupt, GenerateStopsWithinABlockAndWritesNothing) {
    const std::string dir = hs::test::tempDir("cli-interrupt");
    // 400 steps: several seconds on any machine, so the signal lands mid-run.
    const Interrupted r = interruptCli(dir,
                                       "generate --prompt 'a red circle' --steps 400 --out " + dir +
                                           "/cut.png --report " + dir + "/cut.html",
                                       "step 3");
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_NE(r.err.find("interrupted; nothing more was written"), std::string::npos) << r.err;
    EXPECT_LT(r.secondsAfterSignal, 1.0) << r.err;
    EXPECT_FALSE(fs::exists(dir + "/cut.png"));
    EXPECT_FALSE(fs::exists(dir + "/cut.html"));
    std::printf("generate: exit %d, %.3f s after SIGINT\n", r.status, r.secondsAfterSignal);
    fs::remove_all(dir);
}

TEST(CliInterrupt, BisectStopsInsideATrial) {
    const std::string dir = hs::test::tempDir("cli-interrupt-bisect");
    const Interrupted r =
        interruptCli(dir,
                     "bisect --prompt 'a red circle' --plan transformer=fp16 --steps 40 --report " +
                         dir + "/b.html",
                     "bisection");
    EXPECT_EQ(r.status, 130) << r.err;
    EXPECT_LT(r.secondsAfterSignal, 1.0) << r.err;
    EXPECT_FALSE(fs::exists(dir + "/b.html"));
    std::printf("bisect: exit %d, %.3f s after SIGINT\n", r.status, r.secondsAfterSignal);
    fs::remove_all(dir);
}
