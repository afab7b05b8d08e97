#include "test_util.h"

#include <cstdlib>
#include <filesystem>
#include <random>

namespace hs::test {

std::string tempDir(const std::string& tag) {
    std::random_device rd;
    auto p = std::filesystem::temp_directory_path() /
             ("halfscope-test-" + tag + "-" + std::to_string(rd()));
    std::filesystem::create_directories(p);
    return p.string();
}

}  // namespace hs::test
