#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "io/safetensors_header.h"  // FileError
#include "record_equality.h"
#include "report/base64.h"
#include "report/report_json.h"
#include "report_fixtures.h"

using namespace hs;
namespace fs = std::filesystem;

namespace {

// The JSON report keeps doubles within 4 ULPs.
void expectSameDouble(double a, double b, const std::string& what) {
    test::expectSameDouble(a, b, what, false);
}

void expectSameStats(const TensorStats& a, const TensorStats& b, const std::string& what) {
    test::expectSameStats(a, b, what, false);
}

using test::expectSamePreview;

void expectSameRecord(const RunRecord& a, const RunRecord& b) {
    EXPECT_EQ(a.config.modelDir, b.config.modelDir);
    EXPECT_TRUE(a.config.modelFiles == b.config.modelFiles);
    EXPECT_EQ(a.config.prompt, b.config.prompt);
    EXPECT_EQ(a.config.negativePrompt, b.config.negativePrompt);
    EXPECT_EQ(a.config.seed, b.config.seed);
    EXPECT_EQ(a.config.steps, b.config.steps);
    EXPECT_EQ(a.config.guidance, b.config.guidance);
    EXPECT_EQ(a.config.width, b.config.width);
    EXPECT_EQ(a.config.shift, b.config.shift);
    EXPECT_EQ(a.config.plan, b.config.plan);
    EXPECT_EQ(a.config.probeLevel, b.config.probeLevel);
    EXPECT_EQ(a.config.decodeEvery, b.config.decodeEvery);
    EXPECT_EQ(a.config.keepLatents, b.config.keepLatents);
    EXPECT_EQ(a.effectivePlan, b.effectivePlan);
    ASSERT_EQ(a.components.size(), b.components.size());
    for (size_t i = 0; i < a.components.size(); ++i)
        test::expectSameComponent(a.components[i], b.components[i]);
    ASSERT_EQ(a.steps.size(), b.steps.size());
    for (size_t i = 0; i < a.steps.size(); ++i) {
        EXPECT_EQ(a.steps[i].step, b.steps[i].step);
        EXPECT_DOUBLE_EQ(a.steps[i].sigma, b.steps[i].sigma);
        expectSameStats(a.steps[i].latent, b.steps[i].latent, "latent");
        expectSameStats(a.steps[i].velocity, b.steps[i].velocity, "velocity");
        expectSameStats(a.steps[i].denoised, b.steps[i].denoised, "denoised");
        ASSERT_EQ(a.steps[i].latentValues.size(), b.steps[i].latentValues.size());
        for (size_t k = 0; k < a.steps[i].latentValues.size(); ++k) {
            const float x = a.steps[i].latentValues[k], y = b.steps[i].latentValues[k];
            if (std::isnan(x))
                EXPECT_TRUE(std::isnan(y));
            else
                EXPECT_EQ(x, y);
        }
    }
    ASSERT_EQ(a.probes.size(), b.probes.size());
    for (size_t i = 0; i < a.probes.size(); ++i)
        test::expectSameProbe(a.probes[i], b.probes[i], false);
    ASSERT_EQ(a.firstNonFinite.has_value(), b.firstNonFinite.has_value());
    if (a.firstNonFinite) {
        EXPECT_EQ(a.firstNonFinite->index, b.firstNonFinite->index);
        EXPECT_EQ(a.firstNonFinite->at.name, b.firstNonFinite->at.name);
        ASSERT_EQ(a.firstNonFinite->input.has_value(), b.firstNonFinite->input.has_value());
    }
    expectSameStats(a.textEmbedding, b.textEmbedding, "text_embedding");
    expectSameStats(a.image, b.image, "image");
    ASSERT_EQ(a.finalImage.has_value(), b.finalImage.has_value());
    if (a.finalImage) expectSamePreview(*a.finalImage, *b.finalImage);
    ASSERT_EQ(a.savedImage.has_value(), b.savedImage.has_value());
    if (a.savedImage) expectSamePreview(*a.savedImage, *b.savedImage);
    ASSERT_EQ(a.previews.size(), b.previews.size());
    for (size_t i = 0; i < a.previews.size(); ++i) expectSamePreview(a.previews[i], b.previews[i]);
    EXPECT_EQ(a.verdict, b.verdict);
    EXPECT_EQ(a.verdictExplanation, b.verdictExplanation);
    EXPECT_DOUBLE_EQ(a.seconds, b.seconds);
    ASSERT_EQ(a.estimate.has_value(), b.estimate.has_value());
    if (a.estimate) {
        EXPECT_DOUBLE_EQ(a.estimate->seconds, b.estimate->seconds);
        EXPECT_DOUBLE_EQ(a.estimate->bytes, b.estimate->bytes);
        EXPECT_DOUBLE_EQ(a.estimate->weightBytes, b.estimate->weightBytes);
        EXPECT_DOUBLE_EQ(a.estimate->activationBytes, b.estimate->activationBytes);
    }
    EXPECT_EQ(a.cancelled, b.cancelled);
    EXPECT_EQ(a.error, b.error);
}

void checkKeys(const nlohmann::json& j, const std::string& path, int& n) {
    static const std::regex snake("^[a-z][a-z0-9_]*$");
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            EXPECT_TRUE(std::regex_match(it.key(), snake)) << path << "." << it.key();
            ++n;
            checkKeys(it.value(), path + "." + it.key(), n);
        }
    } else if (j.is_array()) {
        for (size_t i = 0; i < j.size() && i < 3; ++i) checkKeys(j[i], path + "[]", n);
    }
}

std::string tempPath(const std::string& name) {
    return (fs::temp_directory_path() / ("halfscope_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

std::string expectFormatError(const std::string& text) {
    try {
        reportFromJson(text);
    } catch (const ReportFormatError& e) {
        return e.what();
    }
    ADD_FAILURE() << "no ReportFormatError";
    return "";
}

}  // namespace

TEST(Base64, RoundTripAndErrors) {
    for (size_t n = 0; n < 40; ++n) {
        std::vector<uint8_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * 37 + 11);
        EXPECT_EQ(base64Decode(base64Encode(v)), v) << n;
    }
    EXPECT_EQ(base64Encode(std::vector<uint8_t>{'M', 'a', 'n'}), "TWFu");
    EXPECT_EQ(base64Encode(std::vector<uint8_t>{'M', 'a'}), "TWE=");
    EXPECT_EQ(base64Encode(std::vector<uint8_t>{'M'}), "TQ==");
    EXPECT_THROW(base64Decode("TWF"), std::invalid_argument);
    EXPECT_THROW(base64Decode("TW!u"), std::invalid_argument);
    EXPECT_THROW(base64Decode("T=Fu"), std::invalid_argument);
}

TEST(ReportJson, SchemaHeaderAndSnakeCaseKeys) {
    const Report r = test::makeComparisonReport();
    const auto j = nlohmann::json::parse(reportToJson(r));
    EXPECT_EQ(j["schema"], "halfscope.report");
    EXPECT_EQ(j["schema_version"], 1);
    EXPECT_EQ(j["runs"].size(), 2u);
    EXPECT_EQ(j["environment"]["compute_capability"], "7.5");
    EXPECT_EQ(j["environment"]["halfscope_version"], HALFSCOPE_VERSION);
    EXPECT_EQ(j["environment"]["cpu_bf16"], "bf16 emulated (fp32 compute, ...); mode emulated");
    const auto& ff = j["runs"][1]["findings"]["first_failure"];
    EXPECT_EQ(ff["point"], "transformer.transformer_blocks.2.ff");
    EXPECT_EQ(ff["kind"], "+Inf");
    EXPECT_EQ(ff["chain_text"], r.runs[1].findings.firstFailure->chainText());
    EXPECT_TRUE(j["runs"][0]["findings"]["first_failure"].is_null());
    const auto& hr = j["runs"][0]["findings"]["headroom"];
    EXPECT_EQ(hr["overflow_threshold"], 65520.0);
    ASSERT_EQ(hr["predicted_overflow"].size(), 1u);
    EXPECT_EQ(hr["predicted_overflow"][0], "transformer.transformer_blocks.2.ff");
    EXPECT_EQ(hr["predicted_first_failure"]["step"], 7);  // 50000 + 2500 * 7 = 67500
    EXPECT_EQ(j["bisection"]["status"], "fixed");
    EXPECT_EQ(j["bisection"]["kept_blocks"][0], "transformer.transformer_blocks.2");
    EXPECT_FALSE(j["advice"]["fixes"].empty());
    const auto& div = j["comparison"]["latent_divergence"][0];
    EXPECT_EQ(div["run"], 1);
    EXPECT_TRUE(div["steps"][7]["non_finite"].get<bool>());
    EXPECT_TRUE(div["steps"][7]["relative_l2"].is_null());  // +inf is written as null
    EXPECT_TRUE(div["steps"][6]["relative_l2"].is_number());
    // Non-finite statistics are null, never a bare NaN token (invalid JSON).
    const auto& nanStats = j["runs"][1]["record"]["steps"][10]["latent"];
    EXPECT_TRUE(nanStats["abs_max"].is_null());
    EXPECT_EQ(nanStats["nan"], 16 * 8 * 8);
    // Images are base64 PNG.
    const std::string png = j["runs"][0]["record"]["final_image"]["png"];
    const auto bytes = base64Decode(png);
    ASSERT_GT(bytes.size(), 8u);
    EXPECT_EQ(bytes[1], 'P');
    EXPECT_EQ(bytes[2], 'N');
    EXPECT_EQ(bytes[3], 'G');
    int keys = 0;
    checkKeys(j, "", keys);
    EXPECT_GT(keys, 200);
}

TEST(ReportJson, WriteReadRoundTrip) {
    Report r = test::makeComparisonReport();
    // The second run opened a file set (a single-file model with its VAE and encoders).
    r.runs[1].record.config.modelDir = "/models/flux1-dev.safetensors";
    r.runs[1].record.config.modelFiles = {"/models/ae.safetensors", "/models/clip_l.safetensors",
                                          "/models/t5xxl_fp16.safetensors", "",
                                          "/models/FLUX.1-dev/tokenizer_2"};
    // The first run made no estimate; the second's activations were not measured (a GPU).
    r.runs[0].record.estimate.reset();
    r.runs[1].record.estimate = RunEstimate{12.5, 2.5e9, 2.5e9, -1};
    const std::string path = tempPath("report.json");
    writeReportJson(path, r);
    const Report back = readReportJson(path);
    std::remove(path.c_str());
    EXPECT_EQ(back.title, r.title);
    EXPECT_EQ(back.createdAt, r.createdAt);
    EXPECT_EQ(back.environment.device, r.environment.device);
    EXPECT_EQ(back.environment.cpu, r.environment.cpu);
    EXPECT_EQ(back.environment.cpuBf16, r.environment.cpuBf16);
    EXPECT_EQ(back.environment.threads, 8);
    ASSERT_EQ(back.runs.size(), 2u);
    EXPECT_TRUE(
        nlohmann::json::parse(reportToJson(r))["runs"][1]["record"]["estimate"]["activation_bytes"]
            .is_null());
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(back.runs[i].label, r.runs[i].label);
        expectSameRecord(r.runs[i].record, back.runs[i].record);
    }
    // Findings are recomputed from the records and agree.
    ASSERT_TRUE(back.runs[1].findings.firstFailure.has_value());
    EXPECT_EQ(back.runs[1].findings.firstFailure->chainText(),
              r.runs[1].findings.firstFailure->chainText());
    EXPECT_EQ(back.runs[0].findings.headroom.overflowing, r.runs[0].findings.headroom.overflowing);
    ASSERT_TRUE(back.bisection.has_value());
    EXPECT_EQ(back.bisection->status, r.bisection->status);
    EXPECT_EQ(back.bisection->keptBlocks, r.bisection->keptBlocks);
    EXPECT_EQ(back.bisection->plan, r.bisection->plan);
    ASSERT_EQ(back.bisection->trials.size(), r.bisection->trials.size());
    for (size_t i = 0; i < r.bisection->trials.size(); ++i) {
        EXPECT_EQ(back.bisection->trials[i].planText, r.bisection->trials[i].planText);
        EXPECT_EQ(back.bisection->trials[i].passed, r.bisection->trials[i].passed);
        EXPECT_EQ(back.bisection->trials[i].why, r.bisection->trials[i].why);
        expectSameDouble(back.bisection->trials[i].outcome.difference,
                         r.bisection->trials[i].outcome.difference, "difference");
    }
    ASSERT_TRUE(back.advice.has_value());
    test::expectSameAdvice(*back.advice, *r.advice);
    // Writing the read-back report gives the same text.
    EXPECT_EQ(reportToJson(back), reportToJson(r));
}

TEST(ReportJson, OptionsDropImagesAndLatents) {
    const Report r = test::makeComparisonReport();
    JsonReportOptions o;
    o.record.images = false;
    o.record.latentValues = false;
    o.indent = -1;
    const std::string text = reportToJson(r, o);
    EXPECT_LT(text.size(), reportToJson(r).size());
    const Report back = reportFromJson(text);
    EXPECT_FALSE(back.runs[0].record.finalImage.has_value());
    EXPECT_TRUE(back.runs[0].record.previews.empty());
    EXPECT_TRUE(back.runs[0].record.steps[0].latentValues.empty());
}

TEST(ReportJson, ClearErrors) {
    EXPECT_NE(expectFormatError("{not json").find("not valid JSON"), std::string::npos);
    EXPECT_NE(expectFormatError("[1,2]").find("not a Halfscope report"), std::string::npos);
    EXPECT_NE(expectFormatError(R"({"schema":"other.thing","schema_version":1})")
                  .find("\"schema\" is \"other.thing\" (expected \"halfscope.report\")"),
              std::string::npos);
    EXPECT_NE(expectFormatError(R"({"schema_version":1})").find("no \"schema\" key"),
              std::string::npos);
    EXPECT_NE(expectFormatError(R"({"schema":"halfscope.report","schema_version":2})")
                  .find("schema_version 2 is newer than this Halfscope reads (1)"),
              std::string::npos);

    auto j = nlohmann::json::parse(reportToJson(test::makeComparisonReport()));
    auto broken = j;
    broken["runs"][1]["record"]["steps"][3]["latent"]["min"] = "small";
    EXPECT_EQ(expectFormatError(broken.dump()),
              "runs[1].record.steps[3].latent.min: expected a number, got a string");
    broken = j;
    broken["runs"][0]["record"]["probes"][5].erase("format");
    EXPECT_EQ(expectFormatError(broken.dump()), "runs[0].record.probes[5].format: missing");
    broken = j;
    broken["runs"][0]["record"]["components"][1]["format"] = "fp8";
    EXPECT_NE(expectFormatError(broken.dump()).find("unknown format \"fp8\""), std::string::npos);
    broken = j;
    broken["runs"][0]["record"]["config"]["plan"] = "transformer=fp99";
    EXPECT_NE(expectFormatError(broken.dump()).find("runs[0].record.config.plan"),
              std::string::npos);
    broken = j;
    broken["runs"][0]["record"]["final_image"]["png"] = "AAAA";
    EXPECT_NE(expectFormatError(broken.dump()).find("final_image.png"), std::string::npos);
    broken = j;
    broken["bisection"]["status"] = "maybe";
    EXPECT_NE(expectFormatError(broken.dump()).find("bisection.status"), std::string::npos);
}

TEST(ReportJson, MissingFileAndAtomicWrite) {
    EXPECT_THROW(readReportJson("/nonexistent/dir/report.json"), FileError);
    const Report r = test::makeComparisonReport();
    EXPECT_THROW(writeReportJson("/nonexistent/dir/report.json", r), FileError);
    // A failed write of a bad path leaves an existing report untouched.
    const std::string path = tempPath("keep.json");
    writeReportJson(path, r);
    const auto before = fs::file_size(path);
    const std::string badFile = tempPath("bad.json");
    { std::ofstream(badFile) << "{\"schema\":\"halfscope.report\",\"schema_version\":1}"; }
    try {
        readReportJson(badFile);
        ADD_FAILURE();
    } catch (const ReportFormatError& e) {
        EXPECT_EQ(std::string(e.what()).rfind(badFile + ": ", 0), 0u) << e.what();
    }
    EXPECT_EQ(fs::file_size(path), before);
    for (const auto& entry : fs::directory_iterator(fs::temp_directory_path()))
        EXPECT_EQ(entry.path().string().find(path + ".tmp"), std::string::npos);
    std::remove(path.c_str());
    std::remove(badFile.c_str());
}
