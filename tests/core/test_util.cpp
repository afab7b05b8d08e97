#include "test_util.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "io/safetensors.h"

namespace hs::test {

NamedTensors readTensorsFile(const std::string& path) {
    NamedTensors r;
    auto set = TensorSet::open(path);
    for (const auto& n : set.names()) r.emplace(n, set.tensor(n).clone());
    return r;
}

void writeJsonFile(const std::string& path, const nlohmann::json& j) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << j.dump(2);
}

void writeWeightsFile(const std::string& path, const WeightMap& w, const std::string& prefix) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::vector<std::pair<std::string, torch::Tensor>> list;
    for (const auto& kv : w) list.emplace_back(prefix + kv.first, kv.second);
    writeSafetensors(path, list);
}

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
