#pragma once
// A whole report as the CLI would assemble it: a clean fp32 reference and a failing fp16 run
// of the same prompt and seed, with a bisection and advice.
#include <set>

#include "record_fixtures.h"
#include "report/report_types.h"

namespace hs::test {

inline Report makeComparisonReport() {
    FixtureOptions ref;
    ref.keepLatents = true;
    ref.transformerFormat = Format::BF16;
    ref.magnitude = [](const std::string& n, int step) {
        if (n == "transformer.transformer_blocks.2.ff") return 50000.0 + 2500.0 * step;
        return defaultMagnitude(n, step);
    };
    FixtureOptions bad = ref;
    bad.transformerFormat = Format::FP16;
    bad.failAt = std::make_pair(std::string("transformer.transformer_blocks.2.ff"), 7);
    std::vector<ReportRun> runs;
    RunRecord fp16 = makeRun(bad);
    // Before it fails, fp16 drifts a little from the reference.
    for (auto& s : fp16.steps)
        if (s.step < 7)
            for (auto& v : s.latentValues) v *= 1.0f + 0.002f * float(s.step + 1);
    runs.push_back(makeReportRun("bf16 reference", makeRun(ref)));
    runs.push_back(makeReportRun("fp16 <all>", std::move(fp16)));
    ReportEnvironment env;
    env.libtorchVersion = "1.13.1";
    env.device = "cuda:0 Tesla T4";
    env.computeCapability = "7.5";
    env.cpu = "Intel Xeon <test> & co";
    env.cpuBf16 = "bf16 emulated (fp32 compute, ...); mode emulated";
    env.threads = 8;
    env.os = "Debian GNU/Linux 12";
    Report r = makeReport(std::move(runs), env);
    r.title = "fox & bird: fp16 vs bf16";

    const auto candidates = std::vector<std::string>{
        "transformer.transformer_blocks.0",        "transformer.transformer_blocks.1",
        "transformer.transformer_blocks.2",        "transformer.single_transformer_blocks.0",
        "transformer.single_transformer_blocks.1", "transformer.single_transformer_blocks.2"};
    auto trial = [&](const PrecisionPlan& p) {
        TrialOutcome o;
        o.seconds = 2.0;
        if (p.resolve("transformer.transformer_blocks.2.ff") == Format::BF16) {
            o.allFinite = true;
            o.verdict = "ok";
            o.difference = 0.004;
        } else {
            o.nonFinite = 12288;
            o.verdict = "nan/inf";
        }
        return o;
    };
    BisectionOptions bo;
    r.bisection = bisectPrecision(PrecisionPlan::parse(r.runs[1].record.effectivePlan), candidates,
                                  trial, bo);
    AdviceInput in;
    in.device = DeviceInfo::cuda("Tesla T4", 7, 5);
    in.components = r.runs[1].record.components;
    in.failingPlan = PrecisionPlan::parse(r.runs[1].record.effectivePlan);
    in.firstFailure = r.runs[1].findings.firstFailure;
    in.headroom = r.runs[0].findings.headroom;
    in.bisection = r.bisection;
    r.advice = adviseFixes(in);
    return r;
}

}  // namespace hs::test
