#pragma once
// Progress of a run on stderr, shared by generate, compare and bisect.
#include <cstdio>
#include <string>

#include "io/terminal_text.h"
#include "records/run_types.h"

namespace hs::cli {

struct StderrProgress : RunObserver {
    std::string prefix;  // "[fp16] " in a comparison
    int steps = 0;
    void onStage(const std::string& s) override {
        std::fprintf(stderr, "%s%s...\n", printable(prefix).c_str(), printable(s).c_str());
    }
    // Steps are named from 0, as the summary, --json, reports and the studio's plot, previews and
    // heatmap name them; the count in brackets is the steps done ("step 0 (1/20 done)").
    void onStep(const StepRecord& s, const std::vector<ProbeRecord>&) override {
        std::fprintf(stderr,
                     "%sstep %d (%d/%d done)  sigma %.4f  latent |max| %.4g  NaN %lld  Inf %lld  "
                     "%.0f ms\n",
                     prefix.c_str(), s.step, s.step + 1,
                     s.scheduleSteps > 0 ? s.scheduleSteps : steps, s.sigma, s.latent.absMax,
                     (long long)s.latent.nan, (long long)(s.latent.posInf + s.latent.negInf),
                     s.seconds * 1000);
    }
    void onFirstNonFinite(const FirstNonFinite& f) override {
        // Step numbers from 0, as the step lines above.
        if (f.at.step < 0)  // text encoding or the decode
            std::fprintf(stderr, "%sfirst non-finite value: %s\n", prefix.c_str(),
                         printable(f.at.name).c_str());
        else
            std::fprintf(stderr, "%sfirst non-finite value: %s at step %d\n", prefix.c_str(),
                         printable(f.at.name).c_str(), f.at.step);
    }
};

}  // namespace hs::cli
