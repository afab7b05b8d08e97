#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "report/csv_report.h"
#include "report_fixtures.h"

using namespace hs;

namespace {

// RFC 4180 rows.
std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows(1);
    std::string field;
    bool quoted = false, wasQuoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = wasQuoted = true;
        } else if (c == ',') {
            rows.back().push_back(field);
            field.clear();
        } else if (c == '\n') {
            rows.back().push_back(field);
            field.clear();
            rows.emplace_back();
        } else {
            field += c;
        }
    }
    if (rows.back().empty()) rows.pop_back();
    (void)wasQuoted;
    return rows;
}

size_t column(const std::vector<std::string>& header, const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
}

}  // namespace

TEST(Csv, Field) {
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
}

TEST(Csv, Steps) {
    Report r = test::makeComparisonReport();
    r.runs[1].label = "fp16, \"all\"";
    const auto rows = parseCsv(stepsCsv(r));
    ASSERT_EQ(rows.size(), 1u + 40u);
    const auto& h = rows[0];
    EXPECT_EQ(h.size(), 6u + 3u * 12u);
    EXPECT_EQ(h[0], "run");
    EXPECT_EQ(h[6], "latent_count");
    EXPECT_EQ(h.back(), "denoised_subnormal_fp16");
    for (const auto& row : rows) EXPECT_EQ(row.size(), h.size());
    const auto& bad = rows[1 + 20 + 10];  // run 1, step 10: NaN latents
    EXPECT_EQ(bad[column(h, "run")], "1");
    EXPECT_EQ(bad[column(h, "label")], "fp16, \"all\"");
    EXPECT_EQ(bad[column(h, "step")], "10");
    EXPECT_EQ(bad[column(h, "latent_abs_max")], "");  // non-finite: empty
    EXPECT_EQ(bad[column(h, "latent_nan")], "1024");
    const auto& good = rows[1 + 3];
    EXPECT_DOUBLE_EQ(std::stod(good[column(h, "latent_abs_max")]), 3.0 - 0.05 * 3);
    EXPECT_DOUBLE_EQ(std::stod(good[column(h, "sigma")]), 1.0 - 3.0 / 20);
}

TEST(Csv, Layers) {
    const Report r = test::makeComparisonReport();
    const auto rows = parseCsv(layersCsv(r));
    const size_t probes = r.runs[0].record.probes.size() + r.runs[1].record.probes.size();
    ASSERT_EQ(rows.size(), 1u + probes);
    const auto& h = rows[0];
    EXPECT_EQ(h[3], "name");
    EXPECT_EQ(h.back(), "headroom_bits");
    std::map<std::string, int> stages;
    for (size_t i = 1; i < rows.size(); ++i) {
        ASSERT_EQ(rows[i].size(), h.size());
        ++stages[rows[i][column(h, "stage")]];
    }
    EXPECT_EQ(stages["text"], 2 * 8);
    EXPECT_EQ(stages["decode"], 2 * 15);
    EXPECT_EQ(stages["step"], 2 * 20 * 29);
    // The failing point of run 1.
    const size_t idx = r.runs[1].findings.firstFailure->probeIndex;
    const auto& row = rows[1 + r.runs[0].record.probes.size() + idx];
    EXPECT_EQ(row[column(h, "name")], "transformer.transformer_blocks.2.ff");
    EXPECT_EQ(row[column(h, "block")], "transformer.transformer_blocks.2");
    EXPECT_EQ(row[column(h, "step")], "7");
    EXPECT_EQ(row[column(h, "format")], "fp16");
    EXPECT_EQ(row[column(h, "pos_inf")], "12");
    EXPECT_NEAR(std::stod(row[column(h, "headroom_bits")]), std::log2(65504.0 / 70000.0), 1e-9);
}
