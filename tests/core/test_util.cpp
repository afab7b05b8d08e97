#include "test_util.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>


namespace hs::test {

std::string tempDir(const std::string& tag) {
    std::random_device rd;
    auto p = std::filesystem::temp_directory_path() /
             ("halfscope-test-" + tag + "-" + std::to_string(rd()));
    std::filesystem::create_directories(p);
    return p.string();
}

std::string runCli(const std::string& args, int& status, bool stdoutOnly) {
    std::string out;
    const std::string cmd =
        std::string(HALFSCOPE_CLI) + " " + args + (stdoutOnly ? " 2>/dev/null" : " 2>&1");
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    status = WEXITSTATUS(pclose(p));
    return out;
}

}  // namespace hs::test
