// halfscope-cli prints each component's loading progress on stderr (plain lines when stderr is
// not a terminal, as here) and nothing of it with --quiet.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace fs = std::filesystem;
using hs::test::runCli;

namespace {

class CliLoadProgress : public hs::test::TempDirTest {};

TEST_F(CliLoadProgress, GeneratePrintsLoadingLinesAndQuietLeavesThemOut) {
    int status = -1;
    std::string out = runCli("generate --steps 1 --out " + m_dir + "/a.png", status);
    ASSERT_EQ(status, 0) << out;
    for (const char* component : {"text_encoder", "transformer", "vae"}) {
        const std::string start = std::string("loading ") + component + ": 0/";
        EXPECT_NE(out.find(start), std::string::npos) << start << "\n" << out;
    }
    EXPECT_NE(out.find("loading transformer: "), std::string::npos);
    EXPECT_NE(out.find(", done in "), std::string::npos) << out;
    EXPECT_EQ(out.find('\r'), std::string::npos);  // not a terminal: plain lines

    out = runCli("generate --quiet --steps 1 --out " + m_dir + "/b.png", status);
    ASSERT_EQ(status, 0) << out;
    EXPECT_EQ(out.find("loading "), std::string::npos) << out;
}

}  // namespace
