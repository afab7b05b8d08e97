#include "runtime/demo_location.h"

#include <cstdlib>
#include <filesystem>

namespace hs {

std::string findDemoModel() {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("HALFSCOPE_DEMO_MODEL")) candidates.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    // Installed: <prefix>/libexec/halfscope/<program> (or <prefix>/bin/<program>).
    if (!ec)
        for (const fs::path& prefix :
             {exe.parent_path().parent_path().parent_path(), exe.parent_path().parent_path()})
            candidates.push_back(prefix / "share/halfscope/demo-model");
    candidates.emplace_back(HALFSCOPE_SOURCE_DEMO_DIR);
    for (const auto& c : candidates)
        if (fs::exists(c / "model_index.json", ec)) return c.string();
    return {};
}

}  // namespace hs
