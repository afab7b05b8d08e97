#include "runtime/demo_location.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace hs {

namespace fs = std::filesystem;

namespace {

// <prefix>/share/halfscope for an installed program: <prefix>/libexec/halfscope/<program> (or
// <prefix>/bin/<program>); then the source tree's resources folder.
std::vector<fs::path> dataFolders() {
    std::vector<fs::path> folders;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec)
        for (const fs::path& prefix :
             {exe.parent_path().parent_path().parent_path(), exe.parent_path().parent_path()})
            folders.push_back(prefix / "share/halfscope");
    folders.push_back(fs::path(HALFSCOPE_SOURCE_DEMO_DIR).parent_path());
    return folders;
}

}  // namespace

std::string findDemoModel() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("HALFSCOPE_DEMO_MODEL")) candidates.emplace_back(env);
    for (const fs::path& d : dataFolders()) candidates.push_back(d / "demo-model");
    std::error_code ec;
    for (const auto& c : candidates)
        if (fs::exists(c / "model_index.json", ec)) return c.string();
    return {};
}

std::string findBundledTokenizer(const std::string& name) {
    std::error_code ec;
    for (const fs::path& d : dataFolders())
        if (fs::is_directory(d / "tokenizers" / name, ec))
            return (d / "tokenizers" / name).string();
    return {};
}

}  // namespace hs
