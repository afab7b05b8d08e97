#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "io/safetensors_header.h"  // FileError
#include "report/report_bundle.h"
#include "report/report_json.h"
#include "report_fixtures.h"

using namespace hs;
namespace fs = std::filesystem;

TEST(ReportBundle, AdviceFromTheFailingAndTheCleanRun) {
    Report r = test::makeComparisonReport();
    r.advice.reset();
    const AdviceInput in = adviceInputFor(r, DeviceInfo::cuda("Tesla T4", 7, 5));
    ASSERT_TRUE(in.firstFailure.has_value());
    EXPECT_EQ(in.firstFailure->point, "transformer.transformer_blocks.2.ff");
    ASSERT_TRUE(in.headroom.has_value());
    EXPECT_TRUE(in.headroom->reliable);  // from the bf16 reference
    EXPECT_EQ(in.failingPlan.toString(), r.runs[1].record.effectivePlan);
    EXPECT_EQ(in.components[1].format, Format::FP16);
    addAdvice(r, DeviceInfo::cuda("Tesla T4", 7, 5));
    ASSERT_TRUE(r.advice.has_value());
    EXPECT_EQ(r.advice->fixes.front().kind, "blocks");  // the bisection's verified set
}

TEST(ReportBundle, CleanRunOnlyPredictsForAnFp16Plan) {
    Report r = test::makeComparisonReport();
    r.runs.resize(1);
    r.bisection.reset();
    const AdviceInput in = adviceInputFor(r, DeviceInfo::cpu());
    EXPECT_FALSE(in.firstFailure.has_value());
    EXPECT_EQ(in.failingPlan.resolve("transformer.transformer_blocks.0"), Format::FP16);
    EXPECT_EQ(in.failingPlan.resolve("vae.decoder.conv_in"), Format::FP32);
    addAdvice(r, DeviceInfo::cpu());
    EXPECT_TRUE(r.advice->predicted);
    // Normalised: the fixture's plan repeats each component; the fix gives each once.
    EXPECT_EQ(r.advice->fixes.front().planText,
              in.failingPlan.normalisedText() + ",transformer.transformer_blocks.2=bf16");
    EXPECT_EQ(r.advice->fixes.front().planText,
              "text_encoder=fp32,vae=fp32,transformer=fp16,transformer.transformer_blocks.2=bf16");
}

TEST(ReportBundle, WritesAllFiles) {
    const Report r = test::makeComparisonReport();
    const fs::path dir =
        fs::temp_directory_path() / ("halfscope_bundle_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const ReportFiles f = writeReportFiles((dir / "run").string(), r);
    EXPECT_EQ(f.html, (dir / "run.html").string());
    for (const auto& p : {f.html, f.json, f.stepsCsv, f.layersCsv}) {
        EXPECT_TRUE(fs::exists(p)) << p;
        EXPECT_GT(fs::file_size(p), 1000u) << p;
    }
    EXPECT_EQ(readReportJson(f.json).runs.size(), 2u);
    // Nothing but the four files (no temporary file left behind).
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 4);
    fs::remove_all(dir);
    EXPECT_THROW(writeReportFiles("/nonexistent/dir/run", r), FileError);
}
