// What Halfscope writes and prints when the names in its input are hostile: temporary files
// never follow a planted symlink, CSV text cells cannot start a spreadsheet formula, terminal
// output carries no control characters from a file, JSON output survives bytes that are not
// UTF-8, and a saved report nested 100 000 levels deep is refused before it is parsed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "demo/demo_tokenizer.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"
#include "io/safetensors_header.h"  // FileError
#include "io/terminal_text.h"
#include "report/csv_report.h"
#include "report/report_json.h"
#include "test_util.h"

using namespace hs;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

class HostileOutput : public test::TempDirTest {
protected:
    // A file holding "precious": what the symlinks the tests plant point at.
    std::string precious() const {
        const std::string victim = path("victim.txt");
        spit(victim, "precious");
        return victim;
    }
};

}  // namespace

TEST_F(HostileOutput, AtomicFileNeverFollowsAPlantedSymlink) {
    const std::string victim = precious(), target = path("report.json");
    // Symlinks at the first names the next AtomicFile of `target` tries, all but the last.
    for (int k = 0; k + 1 < kAtomicTempAttempts; ++k)
        fs::create_symlink(victim, atomicTempPath(target, unsigned(k)));
    writeFileAtomically(target, "new", 3);
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_EQ(slurp(target), "new");
    EXPECT_FALSE(fs::is_symlink(target));
}

TEST_F(HostileOutput, AtomicFileGivesUpClearlyWhenEveryNameIsTaken) {
    const std::string victim = precious(), target = path("out.csv");
    for (int k = 0; k < kAtomicTempAttempts; ++k)
        fs::create_symlink(victim, atomicTempPath(target, unsigned(k)));
    try {
        writeFileAtomically(target, "new", 3);
        ADD_FAILURE() << "wrote through " << kAtomicTempAttempts << " planted names";
    } catch (const FileError& e) {
        EXPECT_NE(std::string(e.what()).find("already exist"), std::string::npos) << e.what();
    }
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_FALSE(fs::exists(target));
}

TEST_F(HostileOutput, DemoTokenizerFilesDoNotFollowOldTemporaryNames) {
    // The demo's writers used "<file>.tmp" by hand: a symlink planted there was written through.
    const std::string victim = precious(), dir = path("tokenizer");
    fs::create_directories(dir);
    for (const char* f :
         {"vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json"})
        fs::create_symlink(victim, dir + "/" + f + ".tmp");
    demo::writeTokenizerFolder(dir, demo::learnBpe({"red", "circle", "red", "square"}), 8);
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_NE(slurp(dir + "/vocab.json").find("red"), std::string::npos);
}

TEST_F(HostileOutput, CsvTextCellsCannotStartAFormula) {
    EXPECT_EQ(csvField("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
    EXPECT_EQ(csvField("+cmd|' /C calc'!A0"), "\"'+cmd|' /C calc'!A0\"");
    EXPECT_EQ(csvField("@SUM(A1)"), "\"'@SUM(A1)\"");
    EXPECT_EQ(csvField("-2+3"), "\"'-2+3\"");
    EXPECT_EQ(csvField("\t=1"), "\"'\t=1\"");
    EXPECT_EQ(csvField("\r=1"), "\"'\r=1\"");
    // Not at the start: plain text stays plain.
    EXPECT_EQ(csvField("blocks.3-attn"), "blocks.3-attn");
    EXPECT_EQ(csvField("a=b"), "a=b");
    EXPECT_EQ(csvField(""), "");
}

TEST_F(HostileOutput, CsvKeepsNegativeNumbersAsNumbers) {
    Report r;
    ReportRun run;
    run.label = "=1+1";
    ProbeRecord p;
    p.name = "-transformer.x";
    p.stats.count = 4;
    p.stats.finite = 4;
    p.stats.min = -3.5;
    p.stats.max = 2;
    p.stats.absMax = 3.5;
    p.stats.mean = -0.25;
    p.stats.std = 1;
    run.record.probes.push_back(p);
    StepRecord s;
    s.sigma = 0.5;
    s.latent = p.stats;
    run.record.steps.push_back(s);
    r.runs.push_back(run);
    const std::string layers = layersCsv(r), steps = stepsCsv(r);
    EXPECT_NE(layers.find("\"'=1+1\""), std::string::npos) << layers;
    EXPECT_NE(layers.find("\"'-transformer.x\""), std::string::npos) << layers;
    EXPECT_NE(layers.find(",-3.5,2,3.5,-0.25,"), std::string::npos) << layers;
    EXPECT_NE(steps.find(",-3.5,2,3.5,-0.25,"), std::string::npos) << steps;
    EXPECT_EQ(layers.find(",'-3.5"), std::string::npos);
}

TEST_F(HostileOutput, PrintableEscapesControlsAndKeepsUtf8) {
    EXPECT_EQ(printable("a\x1b[2Jb"), "a\\x1b[2Jb");
    EXPECT_EQ(printable("bell\a del\x7f"), "bell\\x07 del\\x7f");
    EXPECT_EQ(printable("two\nlines\t"), "two\\x0alines\\x09");
    EXPECT_EQ(printableText("two\nlines\tok\r"), "two\nlines\tok\\x0d");
    EXPECT_EQ(printable("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"),
              "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");  // é, 中, an emoji
    EXPECT_EQ(printable("c1 \xc2\x9b"
                        "31m"),
              "c1 \\u009b31m");  // CSI as a C1 character
    EXPECT_EQ(printable("\xe2\x80\xae"
                        "txt.exe"),
              "\\u202etxt.exe");                  // right-to-left override
    EXPECT_EQ(printable("caf\xe9"), "caf\\xe9");  // Latin-1, not UTF-8
    EXPECT_EQ(printable("\xc0\xaf \xed\xa0\x80 \xe4\xb8"), "\\xc0\\xaf \\xed\\xa0\\x80 \\xe4\\xb8");
    EXPECT_EQ(completeUtf8Prefix("ab\xe4\xb8"), 2u);
    EXPECT_EQ(completeUtf8Prefix("ab\xe4\xb8\xad"), 5u);
}

TEST_F(HostileOutput, InspectPrintsATensorNameWithEscapesNotTheSequence) {
    const std::string file = m_dir + "/evil.safetensors";
    writeSafetensors(file, {{"blocks\x1b[2J\x1b]0;pwned\x07.weight", torch::ones({2, 2})}},
                     {{"format", "pt"}});
    int status = -1;
    const std::string out = test::runCli("inspect '" + file + "'", status);
    EXPECT_EQ(status, 0) << out;
    // The module column shows the name's first part, escaped.
    EXPECT_NE(out.find("blocks\\x1b[2J\\x1b]0;pwned\\x07 "), std::string::npos) << out;
    EXPECT_EQ(out.find('\x1b'), std::string::npos);
    EXPECT_EQ(out.find('\x07'), std::string::npos);
}

TEST_F(HostileOutput, InspectJsonOfALatin1PathDoesNotThrow) {
    const std::string dir = m_dir + "/caf\xe9";
    fs::create_directories(dir);
    const std::string file = dir + "/model.safetensors";
    writeSafetensors(file, {{"w", torch::ones({2})}}, {{"format", "pt"}});
    int status = -1;
    const std::string out = test::runCli("inspect --json '" + file + "'", status, true);
    ASSERT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);  // valid UTF-8 JSON
    EXPECT_NE(j["path"].get<std::string>().find("caf\xef\xbf\xbd"), std::string::npos);
}

TEST_F(HostileOutput, DeeplyNestedReportIsRefusedQuickly) {
    const std::string path = m_dir + "/deep.json";
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    spit(path, deep);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        readReportJson(path);
        ADD_FAILURE() << "read a report nested 100000 levels deep";
    } catch (const FileError& e) {
        EXPECT_NE(std::string(e.what()).find("deeper"), std::string::npos) << e.what();
    }
    EXPECT_THROW(reportFromJson(deep), ReportFormatError);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 1.0);
}

TEST_F(HostileOutput, ReportThatIsNotARegularFileIsRefused) {
    EXPECT_THROW(readReportJson("/dev/zero"), FileError);
    EXPECT_THROW(readReportJson(m_dir), FileError);
}
