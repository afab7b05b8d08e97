// The statistics path CUDA tensors take (statsVector on the device, gathered per step, copied
// once, the first non-finite point found after the copy), executed here on the CPU through a
// real run: it must give the records and the first failing point the CPU kernel gives.
#include <gtest/gtest.h>

#include <cmath>

#include "numerics/probe.h"
#include "pipeline/pipeline.h"
#include "pipeline_fixture.h"
#include "runtime/demo_location.h"

using namespace hs;

namespace {

RunRecord demoRun(const std::string& plan, bool devicePath) {
    ProbeRecorder::setDevicePathOnCpu(devicePath);
    const std::string demo = findDemoModel();
    auto p = Pipeline::load(demo, PrecisionPlan::parse(plan), torch::Device(torch::kCPU));
    RunConfig cfg = test::defaultRunOf(*p, 1, 3);
    cfg.probeLevel = ProbeLevel::Layer;
    RunRecord r = p->run(cfg);
    ProbeRecorder::setDevicePathOnCpu(false);
    return r;
}

// Counts and extremes exactly; the moments to the last few bits (the sums run in another order).
void expectSameStats(const TensorStats& a, const TensorStats& b, const std::string& where) {
    EXPECT_EQ(a.count, b.count) << where;
    EXPECT_EQ(a.finite, b.finite) << where;
    EXPECT_EQ(a.nan, b.nan) << where;
    EXPECT_EQ(a.posInf, b.posInf) << where;
    EXPECT_EQ(a.negInf, b.negInf) << where;
    EXPECT_EQ(a.overFp16, b.overFp16) << where;
    EXPECT_EQ(a.subnormalFp16, b.subnormalFp16) << where;
    if (a.finite == 0) return;
    EXPECT_EQ(a.min, b.min) << where;
    EXPECT_EQ(a.max, b.max) << where;
    EXPECT_EQ(a.absMax, b.absMax) << where;
    EXPECT_NEAR(a.mean, b.mean, 1e-9 * (std::fabs(a.mean) + a.absMax)) << where;
    if (std::isfinite(a.std)) EXPECT_NEAR(a.std, b.std, 1e-9 * (a.std + a.absMax)) << where;
}

TEST(DeviceStatsPath, GivesTheCpuKernelsRecordsAndFirstFailingPoint) {
    ASSERT_FALSE(findDemoModel().empty());
    // A run that fails in the transformer at the first step, and one that stays finite.
    for (const std::string plan : {"transformer=fp16", "transformer=bf16"}) {
        const RunRecord cpu = demoRun(plan, false);
        const RunRecord dev = demoRun(plan, true);
        ASSERT_EQ(cpu.probes.size(), dev.probes.size()) << plan;
        ASSERT_GT(cpu.probes.size(), 50u) << plan;  // layer probes of a whole run
        for (size_t i = 0; i < cpu.probes.size(); ++i) {
            ASSERT_EQ(cpu.probes[i].name, dev.probes[i].name) << i;
            ASSERT_EQ(cpu.probes[i].step, dev.probes[i].step) << i;
            expectSameStats(cpu.probes[i].stats, dev.probes[i].stats,
                            plan + " " + cpu.probes[i].name);
        }
        ASSERT_EQ(cpu.firstNonFinite.has_value(), dev.firstNonFinite.has_value()) << plan;
        EXPECT_EQ(cpu.verdict, dev.verdict) << plan;
        if (!cpu.firstNonFinite) continue;
        EXPECT_EQ(cpu.firstNonFinite->at.name, dev.firstNonFinite->at.name);
        EXPECT_EQ(cpu.firstNonFinite->at.step, dev.firstNonFinite->at.step);
        EXPECT_EQ(cpu.firstNonFinite->index, dev.firstNonFinite->index);
        EXPECT_NE(cpu.firstNonFinite->at.name.find("transformer"), std::string::npos);
    }
}

}  // namespace
