#include "runtime/demo_location.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

namespace hs {

namespace fs = std::filesystem;

namespace {

// This program's own file: /proc/self/exe on Linux, GetModuleFileNameW on Windows (the
// installer's layout: packaging/windows/windows.cmake). Empty when it cannot be found.
fs::path executablePath() {
#ifdef _WIN32
    std::wstring buf(MAX_PATH, L'\0');
    for (;;) {
        const DWORD n = GetModuleFileNameW(nullptr, buf.data(), DWORD(buf.size()));
        if (n == 0) return {};
        if (n < buf.size()) {  // n == size means the path was cut short: grow and ask again
            buf.resize(n);
            return fs::path(buf);
        }
        if (buf.size() >= 32768) return {};  // the longest path Windows has
        buf.resize(buf.size() * 2);
    }
#else
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe;
#endif
}

// <prefix>/share/halfscope for an installed program: <prefix>/libexec/halfscope/<program> (or
// <prefix>/bin/<program>, and <prefix>\bin\<program>.exe on Windows); then the source tree's
// resources folder.
std::vector<fs::path> dataFolders() {
    std::vector<fs::path> folders;
    const fs::path exe = executablePath();
    if (!exe.empty())
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
