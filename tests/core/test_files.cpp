// The file helpers of test_util.h that the fixtures use, apart from the command-line ones so
// that the studio's tests, which build the fixtures without the CLI, link them too.
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "io/safetensors.h"
#include "test_util.h"

namespace hs::test {

NamedTensors readTensorsFile(const std::string& path) {
    NamedTensors r;
    auto set = TensorSet::open(path);
    for (const auto& n : set.names()) r.emplace(n, set.tensor(n).clone());
    return r;
}

void writeTextFile(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

void linkGoldenFluxComponents(const std::string& pipeline) {
    namespace fs = std::filesystem;
    for (const auto& [from, to] : {std::pair<const char*, const char*>{"golden/vae", "vae"},
                                   {"golden/clip", "text_encoder"},
                                   {"golden/flux", "transformer"}})
        fs::create_directory_symlink(fs::absolute(dataPath(from)), pipeline + "/" + to);
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

void scaleStreamWriters(WeightMap& w, const std::string& writers,
                        const std::function<bool(const std::string&)>& isMlp, double c,
                        double mlpGain, int expected) {
    const std::regex pattern(writers);
    int n = 0;
    for (auto& [key, t] : w)
        if (std::regex_match(key, pattern)) {
            t = t * (isMlp(key) ? c * mlpGain : c);
            ++n;
        }
    if (n != expected) throw std::logic_error("the residual writers' keys changed");
}

}  // namespace hs::test
